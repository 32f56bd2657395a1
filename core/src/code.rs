//! Enums stored as text (a game state, a correction's state, ...): each value's code written
//! once, read back with a typed error for a code this build does not know.

use thiserror::Error;

/// A stored code (a game state, a draw source, a draw mode, a fault kind) that names none of
/// its enum's values: the database or a request holds something this build does not know.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{value:?} is not a {what}")]
pub struct UnknownCode {
    pub what: &'static str,
    pub value: String,
}

/// The enums stored as text: one place for `FromStr` and `Display`.
pub(crate) trait Code: Copy + 'static {
    const WHAT: &'static str;
    const VALUES: &'static [Self];
    fn code(self) -> &'static str;
}

pub(crate) fn parse_code<T: Code>(s: &str) -> Result<T, UnknownCode> {
    T::VALUES
        .iter()
        .copied()
        .find(|v| v.code() == s)
        .ok_or_else(|| UnknownCode {
            what: T::WHAT,
            value: s.to_string(),
        })
}

/// `FromStr`, `Display` and `parse` for an enum with `as_str` and `ALL`.
macro_rules! stored_code {
    ($t:ty, $what:literal) => {
        impl $crate::code::Code for $t {
            const WHAT: &'static str = $what;
            const VALUES: &'static [Self] = &<$t>::ALL;
            fn code(self) -> &'static str {
                self.as_str()
            }
        }

        impl std::str::FromStr for $t {
            type Err = $crate::code::UnknownCode;
            fn from_str(s: &str) -> Result<Self, $crate::code::UnknownCode> {
                $crate::code::parse_code(s)
            }
        }

        /// What a database row holds: diesel reads the text and converts it with this.
        impl TryFrom<String> for $t {
            type Error = $crate::code::UnknownCode;
            fn try_from(s: String) -> Result<Self, $crate::code::UnknownCode> {
                $crate::code::parse_code(&s)
            }
        }

        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $t {
            /// The value a stored code names, or [`UnknownCode`].
            pub fn parse(s: &str) -> Result<Self, $crate::code::UnknownCode> {
                $crate::code::parse_code(s)
            }
        }
    };
}

pub(crate) use stored_code;
