//! A few fields typed one after the other on the counter screen, in place of the entry line:
//! the sign-on (staff ID, PIN), a supervisor's approval (staff ID, password, code, reason), a
//! hand-pay (claimant, identity document, cheque). Enter moves to the next field and, on the
//! last, submits; a secret is shown as stars, so the queue behind the player sees nothing.

use ratatui::crossterm::event::KeyCode;

/// One field: its label, what is typed, whether it is a secret, whether it may stay empty.
#[derive(Clone, Debug)]
pub struct Field {
    pub label: &'static str,
    pub value: String,
    pub secret: bool,
    pub optional: bool,
}

impl Field {
    pub fn text(label: &'static str) -> Field {
        Field {
            label,
            value: String::new(),
            secret: false,
            optional: false,
        }
    }

    pub fn secret(label: &'static str) -> Field {
        Field {
            secret: true,
            ..Field::text(label)
        }
    }

    pub fn optional(label: &'static str) -> Field {
        Field {
            optional: true,
            ..Field::text(label)
        }
    }

    /// What the screen shows of it: a secret as stars.
    fn shown(&self) -> String {
        if self.secret {
            "*".repeat(self.value.chars().count())
        } else {
            self.value.clone()
        }
    }
}

#[derive(Clone, Debug)]
pub struct Form {
    pub title: &'static str,
    /// What the form is for, above its fields (the server's refusal, say).
    pub note: Vec<String>,
    pub fields: Vec<Field>,
    pub focus: usize,
}

/// What a key did to the form.
#[derive(Debug, PartialEq, Eq)]
pub enum Typed {
    Editing,
    /// Enter on the last field with every field needed given.
    Submit,
    /// Enter on the last field with this one (needed) left empty: it has the focus now.
    Missing(&'static str),
    /// Esc.
    Cancel,
}

impl Form {
    pub fn new(title: &'static str, note: Vec<String>, fields: Vec<Field>) -> Form {
        Form {
            title,
            note,
            fields,
            focus: 0,
        }
    }

    /// The value typed in the field labelled `label`, trimmed.
    pub fn value(&self, label: &str) -> &str {
        self.fields
            .iter()
            .find(|f| f.label == label)
            .map_or("", |f| f.value.trim())
    }

    /// Empties the secrets and puts the focus on the first of them: typed again after a
    /// refusal, the rest kept.
    pub fn retype_secrets(&mut self) {
        for f in &mut self.fields {
            if f.secret {
                f.value.clear();
            }
        }
        self.focus = self.fields.iter().position(|f| f.secret).unwrap_or(0);
    }

    pub fn key(&mut self, key: KeyCode) -> Typed {
        let last = self.fields.len().saturating_sub(1);
        match key {
            KeyCode::Char(c) => {
                if let Some(f) = self.fields.get_mut(self.focus) {
                    f.value.push(c);
                }
            }
            KeyCode::Backspace => {
                if let Some(f) = self.fields.get_mut(self.focus) {
                    f.value.pop();
                }
            }
            KeyCode::Tab | KeyCode::Down => self.focus = (self.focus + 1).min(last),
            KeyCode::BackTab | KeyCode::Up => self.focus = self.focus.saturating_sub(1),
            KeyCode::Esc => return Typed::Cancel,
            KeyCode::Enter if self.focus < last => self.focus += 1,
            KeyCode::Enter => {
                let missing = self
                    .fields
                    .iter()
                    .position(|f| !f.optional && f.value.trim().is_empty());
                return match missing {
                    Some(i) => {
                        self.focus = i;
                        Typed::Missing(self.fields[i].label)
                    }
                    None => Typed::Submit,
                };
            }
            _ => {}
        }
        Typed::Editing
    }

    /// The form as the body of the screen: the note, then each field, the one typed in marked.
    pub fn lines(&self) -> Vec<String> {
        let mut out = self.note.clone();
        if !out.is_empty() {
            out.push(String::new());
        }
        for (i, f) in self.fields.iter().enumerate() {
            let mark = if i == self.focus { ">" } else { " " };
            let optional = if f.optional { " (if any)" } else { "" };
            out.push(format!("{mark} {}{optional}: {}", f.label, f.shown()));
        }
        out
    }

    /// The entry line: the field typed in.
    pub fn entry(&self) -> String {
        self.fields
            .get(self.focus)
            .map_or(String::new(), |f| format!("{}: {}", f.label, f.shown()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(form: &mut Form, text: &str) -> Typed {
        for c in text.chars() {
            form.key(KeyCode::Char(c));
        }
        form.key(KeyCode::Enter)
    }

    #[test]
    fn fields_one_after_the_other_and_the_secret_never_shown() {
        let mut f = Form::new(
            "SIGN ON",
            vec![],
            vec![Field::text("STAFF ID"), Field::secret("PIN")],
        );
        assert_eq!(typed(&mut f, "1001"), Typed::Editing);
        assert_eq!(f.focus, 1);
        f.key(KeyCode::Char('4'));
        f.key(KeyCode::Char('8'));
        assert_eq!(f.entry(), "PIN: **");
        assert!(f.lines().iter().all(|l| !l.contains("48")));
        assert_eq!(typed(&mut f, "21"), Typed::Submit);
        assert_eq!((f.value("STAFF ID"), f.value("PIN")), ("1001", "4821"));
        f.retype_secrets();
        assert_eq!((f.value("PIN"), f.focus), ("", 1));
        assert_eq!(f.key(KeyCode::Enter), Typed::Missing("PIN"));
        assert_eq!(f.key(KeyCode::Esc), Typed::Cancel);
    }

    #[test]
    fn an_optional_field_may_stay_empty() {
        let mut f = Form::new(
            "HAND-PAY",
            vec!["a major prize".into()],
            vec![Field::text("CLAIMANT"), Field::optional("CHEQUE No.")],
        );
        assert_eq!(f.key(KeyCode::Enter), Typed::Editing);
        assert_eq!(f.key(KeyCode::Enter), Typed::Missing("CLAIMANT"));
        assert_eq!(typed(&mut f, "Jo"), Typed::Editing);
        assert_eq!(f.key(KeyCode::Enter), Typed::Submit);
        assert_eq!(f.lines()[0], "a major prize");
    }
}
