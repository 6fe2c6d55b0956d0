//! Closed sets of names (states, dispositions, verdicts, ...) declared once each.
//!
//! [`closed_set!`] declares an enum with the name of each variant written beside
//! it, and derives from that one list `as_str`, `parse`, `ALL`, `Display` and
//! `Serialize`. The store converts every such enum to and from SQL through
//! [`ClosedSet`], the command line offers them as clap value lists, so a new
//! variant is handled everywhere or does not build.
//!
//! The names are written out rather than derived from the variant identifiers (as
//! `strum`'s `serialize_all` would): they are stored in the ledger and printed in
//! JSON, so renaming a variant must not silently change the file format.

/// An enum whose every value has one stored name.
pub trait ClosedSet: Copy + Sized + 'static {
    /// What the set is called in an error message ("job state").
    const WHAT: &'static str;
    /// Every value, in declaration order (the order reports list them).
    const ALL: &'static [Self];

    /// The name stored in the ledger and printed in reports.
    fn as_str(self) -> &'static str;

    /// Parses a stored name; `None` for any other text.
    fn parse(name: &str) -> Option<Self>;
}

/// Declares a closed set: `closed_set! { /// doc  pub enum Name("what it is") { /// doc  Variant = "name", ... } }`.
///
/// The enum gets `Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord`, an
/// inherent `ALL`, `as_str` and `parse` (callers need no trait in scope),
/// [`ClosedSet`], `Display` (the name) and `Serialize` (the name as a string).
macro_rules! closed_set {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every value, in declaration order (the order reports list them).
            pub const ALL: [$name; [$($name::$variant),+].len()] = [$($name::$variant),+];

            /// The name stored in the ledger and printed in reports.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text ),+
                }
            }

            /// Parses a stored name; `None` for any other text.
            pub fn parse(name: &str) -> Option<$name> {
                match name {
                    $( $text => Some($name::$variant), )+
                    _ => None,
                }
            }
        }

        impl $crate::closed_set::ClosedSet for $name {
            const WHAT: &'static str = $what;
            const ALL: &'static [$name] = &$name::ALL;

            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }

            fn parse(name: &str) -> Option<$name> {
                $name::parse(name)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                // As the names were always written: no padding (format `as_str()` to pad).
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

pub(crate) use closed_set;
