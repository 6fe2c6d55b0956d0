//! The key table's own checks: each key bound once per context, typing reaching only
//! text fields, the tabs' number keys, and how Shift is matched.

use super::*;

#[test]
fn no_key_is_bound_twice_in_one_context() {
    for context in Context::ALL {
        let mut seen = Vec::new();
        let everywhere = bindings(Everywhere).filter(|_| context != Everywhere);
        let editing = bindings(Editing).filter(|_| takes_text(context) && context != Editing);
        for b in bindings(context).chain(everywhere).chain(editing) {
            for t in b.triggers.iter() {
                assert!(!seen.contains(t), "{t:?} bound twice in {context:?}");
                seen.push(*t);
            }
        }
    }
}

#[test]
fn typing_falls_through_to_text_fields_only() {
    let q = KeyEvent::from(KeyCode::Char('q'));
    assert_eq!(action_for_key(List, &q), Some(Action::BackOrQuit));
    assert_eq!(action_for_key(Filter, &q), Some(Action::Input('q')));
    assert_eq!(action_for_key(Form, &q), Some(Action::Input('q')));
    assert_eq!(action_for_key(Confirm, &q), Some(Action::Back));
    assert_eq!(
        action_for_key(Confirm, &KeyEvent::from(KeyCode::Char('z'))),
        None
    );
    assert_eq!(
        action_for_key(Refused, &KeyEvent::from(KeyCode::Char('y'))),
        None
    );
}

#[test]
fn each_tab_is_shown_by_its_number_key_in_lists_and_the_detail() {
    for &tab in Tab::ALL {
        let key = KeyEvent::from(KeyCode::Char(tab.key()));
        for context in [List, Detail] {
            assert_eq!(action_for_key(context, &key), Some(Action::ShowTab(tab)));
        }
    }
}

#[test]
fn shifted_characters_match_their_binding() {
    let end = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
    assert_eq!(action_for_key(List, &end), Some(Action::Move(Move::End)));
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(action_for_key(Form, &ctrl_c), Some(Action::Quit));
}

#[test]
fn shift_tab_goes_back_with_or_without_the_shift_modifier() {
    for mods in [KeyModifiers::SHIFT, KeyModifiers::NONE] {
        let back_tab = KeyEvent::new(KeyCode::BackTab, mods);
        assert_eq!(action_for_key(List, &back_tab), Some(Action::PrevTab));
        assert_eq!(action_for_key(Form, &back_tab), Some(Action::PrevField));
    }
}
