//! What every form is made of: a one-line text field, and what came of submitting.
//!
//! The forms (answer, owner, request, bulk, decisions, withdraw) each import these; the
//! module imports no form, so the forms never reach each other through it.

use crate::store::AnswerRow;

use tui_input::Input;
pub use tui_input::InputRequest;

/// Longest text a field takes, in characters (a note is a note, not a document).
pub const FIELD_MAX_CHARS: usize = 500;

/// A one-line text field: its text, a cursor in it, and whether the text is selected.
///
/// The editing itself (cursor moves by character and word, deletes either side) is
/// `tui_input`'s; the field keeps its own rules on top: control characters are never
/// typed, the text stays within [`FIELD_MAX_CHARS`], and a prefilled value starts
/// selected, so that typing replaces it rather than appending to it.
#[derive(Debug, Clone, Default)]
pub struct TextField {
    input: Input,
    /// The whole text is selected (a value put there for the reviewer): the first
    /// character typed, or a delete, replaces it; a move keeps it and starts editing it.
    selected: bool,
}

impl PartialEq for TextField {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
            && self.cursor() == other.cursor()
            && self.selected == other.selected
    }
}

impl Eq for TextField {}

impl TextField {
    /// A field prefilled with `text`, selected, the cursor at its end.
    pub fn with(text: &str) -> Self {
        TextField {
            input: Input::new(text.to_owned()),
            selected: !text.is_empty(),
        }
    }

    /// The text as typed.
    pub fn text(&self) -> &str {
        self.input.value()
    }

    /// Characters before the cursor.
    pub fn cursor(&self) -> usize {
        self.input.cursor()
    }

    /// Is the whole text selected (prefilled and not yet touched)?
    pub fn is_selected(&self) -> bool {
        self.selected
    }

    /// Types a character at the cursor (control characters are not typed text).
    pub fn push(&mut self, c: char) {
        self.edit(InputRequest::InsertChar(c));
    }

    /// Deletes the character before the cursor.
    pub fn erase(&mut self) {
        self.edit(InputRequest::DeletePrevChar);
    }

    /// Carries out one editing request.
    pub fn edit(&mut self, request: InputRequest) {
        use InputRequest::{
            DeleteFromStart, DeleteLine, DeleteNextChar, DeleteNextWord, DeletePrevChar,
            DeletePrevWord, DeleteTillEnd, InsertChar, Yank,
        };
        let replaces = matches!(
            request,
            InsertChar(_)
                | DeletePrevChar
                | DeleteNextChar
                | DeletePrevWord
                | DeleteNextWord
                | DeleteLine
                | DeleteTillEnd
                | DeleteFromStart
        );
        match request {
            InsertChar(c) if c.is_control() => return,
            // Pasting back what was cut could pass the limit; no key asks for it.
            Yank => return,
            _ => {}
        }
        if std::mem::take(&mut self.selected) && replaces {
            self.input.reset();
            if !matches!(request, InsertChar(_)) {
                return;
            }
        }
        if matches!(request, InsertChar(_)) && self.text().chars().count() >= FIELD_MAX_CHARS {
            return;
        }
        self.input.handle(request);
    }
}

/// What came of submitting a form.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Written; the lines say what.
    Written(Vec<String>),
    /// Someone else answered the row since it was loaded: their answer, shown instead.
    AnsweredMeanwhile(Box<AnswerRow>),
    /// The request was refused; the reason in plain words.
    Refused(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_never_typed() {
        let mut field = TextField::default();
        for c in ['a', '\u{1b}', '\n', '\u{7f}', '\u{9b}', 'b'] {
            field.push(c);
        }
        assert_eq!(field.text(), "ab");
    }

    #[test]
    fn the_text_stays_within_its_limit_wherever_the_cursor_is() {
        let mut field = TextField::default();
        for _ in 0..FIELD_MAX_CHARS + 10 {
            field.push('x');
        }
        assert_eq!(field.text().chars().count(), FIELD_MAX_CHARS);
        field.edit(InputRequest::GoToStart);
        field.push('y');
        assert!(!field.text().contains('y'));
    }

    #[test]
    fn a_prefilled_value_is_replaced_by_typing_and_kept_by_a_move() {
        let mut typed = TextField::with("ops:maria");
        assert!(typed.is_selected());
        typed.push('k');
        assert_eq!((typed.text(), typed.is_selected()), ("k", false));

        let mut moved = TextField::with("ops:maria");
        moved.edit(InputRequest::GoToStart);
        moved.push('k');
        assert_eq!(moved.text(), "kops:maria");

        let mut deleted = TextField::with("ops:maria");
        deleted.edit(InputRequest::DeleteNextChar);
        assert_eq!(deleted.text(), "");
        deleted.push('k');
        assert_eq!(deleted.text(), "k");

        // A control character is no typing: the value stays selected.
        let mut escaped = TextField::with("ops:maria");
        escaped.push('\u{1b}');
        assert_eq!((escaped.text(), escaped.is_selected()), ("ops:maria", true));
    }
}
