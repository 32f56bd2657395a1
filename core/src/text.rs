//! Free text a person types that the room keeps: names, reasons, a hand-pay's and a claim's
//! fields (issue 31).
//!
//! One rule for all of them. A name or an ID number is read back by people (on a slip, in the
//! exceptions, to an inspector) and compared by the program (the same person on two staff IDs):
//! a zero-width space or a right-to-left override makes two strings that look the same differ,
//! or one that reads "Jo Citizen" hold something else. So the text is trimmed, refused if it
//! holds a control character or an invisible one, and kept in Unicode Normalization Form C,
//! so that "é" typed as one code point or as "e" and a combining accent is one name.
//!
//! Refused (each named to the person by its code point, "U+200B"):
//! - controls (general category Cc: tabs, line feeds, escapes...), but a line feed in text of
//!   several lines ([`clean_lines`]: a postal address, a claim's other details);
//! - invisible format characters (Cf: soft hyphen U+00AD, zero-width space, non-joiner and joiner
//!   U+200B..U+200D, the bidi marks and controls U+200E, U+200F, U+202A..U+202E,
//!   U+2066..U+2069, word joiner U+2060, byte order mark U+FEFF, Mongolian vowel separator
//!   U+180E, tags...). The joiners are refused too, although some scripts and emoji use them:
//!   what the room keeps is a name as an identity document spells it, and an invisible
//!   difference there is a way to pass as someone else;
//! - line and paragraph separators (Zl, Zp: U+2028, U+2029), line breaks by another name;
//! - the other characters Unicode marks Default_Ignorable_Code_Point (drawn as nothing): the
//!   combining grapheme joiner, the variation selectors, the Hangul fillers... `INVISIBLE`
//!   lists them, as `unicode-properties` has the general category but not that property.

use thiserror::Error;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// Text that cannot be kept, with what is wrong with it; the caller names the field.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TextError {
    #[error("is empty")]
    Empty,
    #[error("is {chars} characters, more than {max_chars}")]
    TooLong { max_chars: usize, chars: usize },
    /// `position` counts characters from 1, in the text as trimmed.
    #[error("holds {} ({what}) at character {position}: type it again without", code_point(*found))]
    Refused {
        found: char,
        what: &'static str,
        position: usize,
    },
}

/// `U+200B`: how a character is named to a person who cannot see it.
pub fn code_point(c: char) -> String {
    format!("U+{:04X}", c as u32)
}

/// Default_Ignorable_Code_Point characters whose general category is not Cf (those are refused
/// by category), from Unicode's DerivedCoreProperties.txt; unassigned ones included, as they
/// are reserved to be drawn as nothing.
const INVISIBLE: &[(char, char)] = &[
    ('\u{034F}', '\u{034F}'),   // combining grapheme joiner
    ('\u{115F}', '\u{1160}'),   // Hangul choseong and jungseong fillers
    ('\u{17B4}', '\u{17B5}'),   // Khmer inherent vowels
    ('\u{180B}', '\u{180D}'),   // Mongolian free variation selectors
    ('\u{180F}', '\u{180F}'),   // Mongolian free variation selector four
    ('\u{3164}', '\u{3164}'),   // Hangul filler
    ('\u{FE00}', '\u{FE0F}'),   // variation selectors
    ('\u{FFA0}', '\u{FFA0}'),   // halfwidth Hangul filler
    ('\u{FFF0}', '\u{FFF8}'),   // reserved
    ('\u{E0000}', '\u{E0FFF}'), // tags (Cf) and variation selectors supplement
];

/// Why `c` is refused, if it is.
fn refused(c: char, lines: bool) -> Option<&'static str> {
    if c == '\n' && lines {
        return None;
    }
    if c.is_control() {
        return Some("a control character");
    }
    match c.general_category() {
        GeneralCategory::Format => Some("an invisible format character"),
        GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator => {
            Some("a line separator")
        }
        _ if INVISIBLE.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) => {
            Some("an invisible character")
        }
        _ => None,
    }
}

/// One line of text as kept: trimmed, 1 to `max_chars` characters (counted in NFC), no control
/// or invisible character, in NFC.
pub fn clean_text(text: &str, max_chars: usize) -> Result<String, TextError> {
    clean(text, max_chars, false)
}

/// As [`clean_text`], for text of several lines: line feeds are kept (a carriage return before
/// one is dropped, as a browser may send it), each line's end trimmed.
pub fn clean_lines(text: &str, max_chars: usize) -> Result<String, TextError> {
    let lines: Vec<&str> = text.split('\n').map(|l| l.trim_end()).collect();
    clean(&lines.join("\n"), max_chars, true)
}

fn clean(text: &str, max_chars: usize, lines: bool) -> Result<String, TextError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(TextError::Empty);
    }
    if let Some((i, found, what)) = text
        .chars()
        .enumerate()
        .find_map(|(i, c)| refused(c, lines).map(|what| (i, c, what)))
    {
        return Err(TextError::Refused {
            found,
            what,
            position: i + 1,
        });
    }
    // NFC composes only assigned letters and marks: nothing refused above can appear.
    let kept: String = text.nfc().collect();
    let chars = kept.chars().count();
    if chars > max_chars {
        return Err(TextError::TooLong { max_chars, chars });
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused_at(text: &str) -> (String, usize) {
        match clean_text(text, 100) {
            Err(TextError::Refused {
                found, position, ..
            }) => (code_point(found), position),
            other => panic!("{text:?} was not refused: {other:?}"),
        }
    }

    #[test]
    fn text_is_trimmed_and_kept_in_nfc() {
        assert_eq!(clean_text("  Jo Citizen \t", 100).unwrap(), "Jo Citizen");
        // "e" and a combining acute accent is stored as the one "é".
        assert_eq!(clean_text("Rene\u{0301}e", 100).unwrap(), "Ren\u{00E9}e");
        assert_eq!(clean_text("Ren\u{00E9}e", 100).unwrap(), "Ren\u{00E9}e");
        // Letters of any script, apostrophes, hyphens and accents are names.
        for name in [
            "O'Brien-Smith",
            "Zoë Ça",
            "李小龍",
            "Ngô Bảo Châu",
            "Åsa Øberg",
        ] {
            assert_eq!(
                clean_text(name, 100).unwrap(),
                name.nfc().collect::<String>()
            );
        }
    }

    #[test]
    fn empty_and_too_long_are_refused_after_trimming_and_composing() {
        assert_eq!(clean_text("   ", 10), Err(TextError::Empty));
        assert_eq!(clean_text("", 10), Err(TextError::Empty));
        assert_eq!(
            clean_text("abcdefghijk", 10),
            Err(TextError::TooLong {
                max_chars: 10,
                chars: 11
            })
        );
        // Ten characters once composed, though twenty code points typed.
        let decomposed = "e\u{0301}".repeat(10);
        assert_eq!(clean_text(&decomposed, 10).unwrap(), "\u{00E9}".repeat(10));
    }

    #[test]
    fn invisible_format_characters_are_refused_by_code_point() {
        for c in [
            '\u{00AD}',
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{200F}',
            '\u{2060}',
            '\u{FEFF}',
            '\u{202A}',
            '\u{202B}',
            '\u{202C}',
            '\u{202D}',
            '\u{202E}',
            '\u{2066}',
            '\u{2067}',
            '\u{2068}',
            '\u{2069}',
            '\u{180E}',
            '\u{061C}',
            '\u{E0041}',
        ] {
            let (found, at) = refused_at(&format!("Jo{c}Citizen"));
            assert_eq!(found, code_point(c));
            assert_eq!(at, 3);
        }
        let e = clean_text("ID 12\u{200B}34", 100).unwrap_err();
        assert_eq!(
            e.to_string(),
            "holds U+200B (an invisible format character) at character 6: type it again without"
        );
    }

    #[test]
    fn other_invisible_characters_are_refused() {
        for c in [
            '\u{034F}',
            '\u{FE0F}',
            '\u{FE00}',
            '\u{3164}',
            '\u{115F}',
            '\u{FFA0}',
            '\u{E0100}',
            '\u{2028}',
            '\u{2029}',
        ] {
            assert_eq!(refused_at(&format!("A{c}B")).0, code_point(c));
        }
    }

    #[test]
    fn controls_are_refused_and_line_feeds_kept_only_in_lines() {
        for c in [
            '\0', '\t', '\n', '\r', '\u{1B}', '\u{7F}', '\u{85}', '\u{9B}',
        ] {
            assert_eq!(refused_at(&format!("A{c}B")).0, code_point(c));
        }
        assert_eq!(
            clean_lines("1 Main St \r\nCanberra  ACT\n", 100).unwrap(),
            "1 Main St\nCanberra  ACT"
        );
        assert!(matches!(
            clean_lines("1 Main St\n\u{202E}Canberra", 100),
            Err(TextError::Refused {
                found: '\u{202E}',
                position: 11,
                ..
            })
        ));
        assert!(matches!(
            clean_lines("a\tb", 100),
            Err(TextError::Refused { found: '\t', .. })
        ));
    }
}
