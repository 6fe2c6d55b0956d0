//! Who wrote a person's row, as it is shown: the name the person gave and, where the
//! ledger knows it, the database role that wrote the row (`ana (as jobledger_reviewer)`).
//! A PostgreSQL ledger records the role on the server; a SQLite file has no roles, so
//! its own rows show the name alone, exactly as before roles were kept. Both come from
//! outside (the name from the person, the role from the server) and are made inert.

use crate::inert::inert;

/// ` (as ROLE)` when the role that wrote the row is known, else nothing.
pub fn as_role(written_by: Option<&str>) -> String {
    written_by.map_or_else(String::new, |role| format!(" (as {})", inert(role)))
}

/// `NAME (as ROLE)`, or `NAME` alone when the role is not known.
pub fn signed(name: &str, written_by: Option<&str>) -> String {
    format!("{}{}", inert(name), as_role(written_by))
}

#[cfg(test)]
mod tests {
    use super::{as_role, signed};

    #[test]
    fn the_role_is_said_beside_the_name_only_when_known() {
        assert_eq!(signed("ana", None), "ana");
        assert_eq!(
            signed("ana", Some("jobledger_reviewer")),
            "ana (as jobledger_reviewer)"
        );
        assert_eq!(as_role(None), "");
    }

    #[test]
    fn a_role_from_the_server_is_made_inert_too() {
        // A role name is any identifier the server took, quoted ones included.
        assert_eq!(
            signed("ana\u{1b}[2J", Some("evil\u{1b}]52;c;x\u{7}")),
            "ana^[[2J (as evil^[]52;c;x^G)"
        );
    }
}
