use super::super::{Bound, Comparison, Field, Query, Scope, Test, Value};
use crate::clock::Timestamp;
use crate::decision::{Disposition, Outcome, Verdict};

fn tests(text: &str) -> Vec<(bool, Test)> {
    Query::parse(text, Scope::Callbacks)
        .unwrap_or_else(|e| panic!("{text:?}: {e}"))
        .terms()
        .iter()
        .map(|t| (t.negated, t.test.clone()))
        .collect()
}

fn refused(text: &str, scope: Scope) -> (usize, String) {
    let e = Query::parse(text, scope).expect_err(text);
    (e.column, e.message)
}

#[test]
fn fields_words_and_negation() {
    assert_eq!(
        tests(r#"job:j-1 -reason:possible_duplicate_effect staff "two words""#),
        vec![
            (false, Test::Is(Field::Job, Value::Text("j-1".into()))),
            (
                true,
                Test::Is(
                    Field::Reason,
                    Value::Text("possible_duplicate_effect".into())
                )
            ),
            (false, Test::Words("staff".into())),
            (false, Test::Words("two words".into())),
        ]
    );
    assert_eq!(
        tests(r#"by:"staff:maria" delivery:d-9 reviewer:ana owner:ops"#)[0],
        (
            false,
            Test::Is(Field::By, Value::Text("staff:maria".into()))
        )
    );
    assert!(Query::parse("", Scope::Callbacks).is_ok_and(|q| q.is_empty()));
    assert!(Query::parse("   ", Scope::Callbacks).is_ok_and(|q| q.is_empty()));
}

#[test]
fn closed_sets_are_checked() {
    assert_eq!(
        tests("disposition:hold outcome:success verdict:needs_remote_check answered:no"),
        vec![
            (
                false,
                Test::Is(Field::Disposition, Value::Disposition(Disposition::Hold))
            ),
            (
                false,
                Test::Is(Field::Outcome, Value::Outcome(Outcome::Success))
            ),
            (
                false,
                Test::Is(Field::Verdict, Value::Verdict(Verdict::NeedsRemoteCheck))
            ),
            (false, Test::Is(Field::Answered, Value::Yes(false))),
        ]
    );
    let (column, message) = refused("job:x disposition:held", Scope::Callbacks);
    assert_eq!(column, 19);
    assert_eq!(
        message,
        "`held` is not a disposition; one of: apply, hold, record, quarantine"
    );
    let (_, message) = refused("verdict:single", Scope::Callbacks);
    assert!(
        message.contains("single_effect, duplicate_effect"),
        "{message}"
    );
    let (_, message) = refused("answered:maybe", Scope::Callbacks);
    assert!(message.contains("yes or no"), "{message}");
}

#[test]
fn comparisons_on_durations_and_times() {
    let at = |s| Bound::At(Timestamp::parse(s).expect("a time"));
    assert_eq!(
        tests("gap>1h age<=2d gap>=-5m arrived<2026-11-27T14:00 timeout>2026-11-27"),
        vec![
            (
                false,
                Test::Compare(Field::Gap, Comparison::Greater, Bound::Seconds(3600))
            ),
            (
                false,
                Test::Compare(Field::Age, Comparison::LessOrEqual, Bound::Seconds(172_800))
            ),
            (
                false,
                Test::Compare(Field::Gap, Comparison::GreaterOrEqual, Bound::Seconds(-300))
            ),
            (
                false,
                Test::Compare(Field::Arrived, Comparison::Less, at("2026-11-27T14:00:00Z"))
            ),
            (
                false,
                Test::Compare(
                    Field::Timeout,
                    Comparison::GreaterOrEqual,
                    at("2026-11-28T00:00:00Z")
                )
            ),
        ]
    );
    assert_eq!(
        tests("-gap>1h30m")[0],
        (
            true,
            Test::Compare(Field::Gap, Comparison::Greater, Bound::Seconds(5400))
        )
    );
    assert_eq!(
        tests("arrived>=2026-11-27T14:00:05.250Z")[0].1,
        Test::Compare(
            Field::Arrived,
            Comparison::GreaterOrEqual,
            at("2026-11-27T14:00:05.250Z")
        )
    );
}

#[test]
fn errors_say_where_and_what() {
    let cases: &[(&str, usize, &str)] = &[
        ("gap>soon", 5, "cannot read \"soon\" here: gap>1h"),
        ("gap>", 5, "nothing to compare with here"),
        ("gap:1h", 4, "`gap` is compared, not matched"),
        ("job>3", 5, "`job` is matched, not compared"),
        ("job:", 5, "`job:` needs a value"),
        ("ok - x", 4, "`-` needs a term"),
        ("job:\"open", 5, "never closed"),
        ("\"a\"b", 4, "a space must follow"),
        ("staff:maria", 1, "no field `staff`"),
        ("arrived<yesterday", 9, "cannot read \"yesterday\""),
    ];
    for &(text, column, start) in cases {
        let (at, message) = refused(text, Scope::Callbacks);
        assert!(message.contains(start), "{text:?}: {message}");
        assert_eq!(at, column, "{text:?}: {message}");
    }
}

#[test]
fn a_field_outside_the_view_names_the_views_fields() {
    let (column, message) = refused("job:a verdict:noise", Scope::AgedJobs);
    assert_eq!(column, 7);
    assert_eq!(
        message,
        "`verdict` does not apply to this view; its fields: job, owner, age, escalates, overdue"
    );
    assert!(Query::parse("escalates<2026-12-01 owner:ops -age>1d", Scope::AgedJobs).is_ok());
    assert!(Query::parse("escalates<2026-12-01", Scope::Callbacks).is_err());
    assert!(Query::parse("reason:timeout age>1h", Scope::RejectedLines).is_ok());
}

#[test]
fn a_query_holds_at_most_max_terms_and_the_one_past_is_named_by_its_column() {
    use super::MAX_TERMS;
    let most = vec!["x"; MAX_TERMS].join(" ");
    assert_eq!(tests(&most).len(), MAX_TERMS);
    let (column, message) = refused(&format!("{most} y"), Scope::Callbacks);
    assert_eq!(column, most.chars().count() + 2);
    assert!(message.contains("at most 10000 terms"), "{message}");
}

#[test]
fn field_names_and_closed_set_names_take_any_case() {
    assert_eq!(
        tests("Job:x Gap>1h DISPOSITION:HOLD answered:YES Verdict:Single_Effect OUTCOME:Failure"),
        vec![
            (false, Test::Is(Field::Job, Value::Text("x".into()))),
            (
                false,
                Test::Compare(Field::Gap, Comparison::Greater, Bound::Seconds(3600))
            ),
            (
                false,
                Test::Is(Field::Disposition, Value::Disposition(Disposition::Hold))
            ),
            (false, Test::Is(Field::Answered, Value::Yes(true))),
            (
                false,
                Test::Is(Field::Verdict, Value::Verdict(Verdict::SingleEffect))
            ),
            (
                false,
                Test::Is(Field::Outcome, Value::Outcome(Outcome::Failure))
            ),
        ]
    );
    let (_, message) = refused("Escalates<2026-12-01", Scope::Callbacks);
    assert!(message.contains("does not apply to this view"), "{message}");
}

#[test]
fn a_word_written_like_a_field_that_is_none_is_refused_with_the_views_fields() {
    let cases: &[(&str, usize, &str)] = &[
        (
            "gap=1h",
            4,
            "`gap` is compared with >, <, >= or <=, not `=`: gap>1h",
        ),
        (
            "x Job=j-1",
            6,
            "`job` is matched with `:`, not `=`: job:TEXT",
        ),
        (
            "Foo:x",
            1,
            "no field `Foo`; this view's fields: job, delivery, reason",
        ),
        ("status2=x", 1, "no field `status2`"),
        ("age>=1d Gapp<1h", 9, "no field `Gapp`"),
    ];
    for &(text, column, start) in cases {
        let (at, message) = refused(text, Scope::Callbacks);
        assert!(message.contains(start), "{text:?}: {message}");
        assert_eq!(at, column, "{text:?}: {message}");
    }
    let (_, message) = refused("state=open", Scope::AgedJobs);
    assert!(
        message.contains("this view's fields: job, owner, age, escalates"),
        "{message}"
    );
    // What a field's name cannot begin: still text to look for.
    assert_eq!(tests("14:00")[0].1, Test::Words("14:00".into()));
    assert_eq!(tests("j-1:x")[0].1, Test::Words("j-1:x".into()));
    // Quoted, such text is looked for as it is.
    assert_eq!(tests(r#""Foo:x""#)[0].1, Test::Words("Foo:x".into()));
}

#[test]
fn owner_none_is_no_owner_and_a_quoted_none_is_a_name() {
    assert_eq!(
        tests(r#"owner:none -Owner:NONE owner:"none" owner:unowned"#),
        vec![
            (false, Test::Is(Field::Owner, Value::Nothing)),
            (true, Test::Is(Field::Owner, Value::Nothing)),
            (false, Test::Is(Field::Owner, Value::Text("none".into()))),
            (false, Test::Is(Field::Owner, Value::Text("unowned".into()))),
        ]
    );
    // Elsewhere `none` is text like any other.
    assert_eq!(
        tests("reviewer:none")[0].1,
        Test::Is(Field::Reviewer, Value::Text("none".into()))
    );
}

#[test]
fn a_time_bound_keeps_the_stored_milliseconds_it_says() {
    use Comparison::{Greater, GreaterOrEqual, Less, LessOrEqual};
    let at = |s| Bound::At(Timestamp::parse(s).expect("a time"));
    let compare = |text: &str| match tests(text).remove(0).1 {
        Test::Compare(_, op, bound) => (op, bound),
        other => panic!("{text:?}: {other:?}"),
    };
    let cases = [
        // Between two milliseconds: `<` keeps the one below, `>=` leaves it out.
        (
            "arrived<2026-11-27T14:00:00.0005Z",
            LessOrEqual,
            "2026-11-27T14:00:00.000Z",
        ),
        (
            "arrived<=2026-11-27T14:00:00.0005Z",
            LessOrEqual,
            "2026-11-27T14:00:00.000Z",
        ),
        (
            "arrived>2026-11-27T14:00:00.0005Z",
            Greater,
            "2026-11-27T14:00:00.000Z",
        ),
        (
            "arrived>=2026-11-27T14:00:00.0005Z",
            Greater,
            "2026-11-27T14:00:00.000Z",
        ),
        (
            "arrived<2026-11-27T15:00:00.0005+01:00",
            LessOrEqual,
            "2026-11-27T14:00:00.000Z",
        ),
        (
            "arrived<2026-11-27T14:00:00.000Z",
            Less,
            "2026-11-27T14:00:00.000Z",
        ),
        // A day alone: the whole day for `<=` and `>`, its start for `<` and `>=`.
        ("arrived<=2026-11-27", Less, "2026-11-28T00:00:00Z"),
        ("timeout>2026-11-27", GreaterOrEqual, "2026-11-28T00:00:00Z"),
        ("arrived<2026-11-27", Less, "2026-11-27T00:00:00Z"),
        (
            "arrived>=2026-11-27Z",
            GreaterOrEqual,
            "2026-11-27T00:00:00Z",
        ),
        ("arrived<=2026-12-31", Less, "2027-01-01T00:00:00Z"),
        // A time of the day is that instant.
        (
            "arrived<=2026-11-27T14:00",
            LessOrEqual,
            "2026-11-27T14:00:00Z",
        ),
        // The ledger's last day ends at its last millisecond.
        (
            "arrived<=9999-12-31",
            LessOrEqual,
            "9999-12-31T23:59:59.999Z",
        ),
        ("arrived>9999-12-31", Greater, "9999-12-31T23:59:59.999Z"),
    ];
    for (text, op, bound) in cases {
        assert_eq!(compare(text), (op, at(bound)), "{text}");
    }
}

fn aged_tests(text: &str) -> Vec<(bool, Test)> {
    Query::parse_as(text, Scope::AgedJobs, "ops:kim")
        .unwrap_or_else(|e| panic!("{text:?}: {e}"))
        .terms()
        .iter()
        .map(|t| (t.negated, t.test.clone()))
        .collect()
}

#[test]
fn times_from_now_overdue_and_owner_me() {
    use Comparison::{Greater, Less};
    let escalates = |op, s| {
        (
            false,
            Test::Compare(Field::Escalates, op, Bound::FromNow(s)),
        )
    };
    assert_eq!(aged_tests("escalates<now"), [escalates(Less, 0)]);
    assert_eq!(aged_tests("escalates<NOW"), [escalates(Less, 0)]);
    assert_eq!(aged_tests("escalates<+1h"), [escalates(Less, 3600)]);
    assert_eq!(aged_tests("escalates>-30m"), [escalates(Greater, -1800)]);
    assert_eq!(
        tests("arrived>-2h"),
        [(
            false,
            Test::Compare(Field::Arrived, Greater, Bound::FromNow(-7200))
        )]
    );
    // An absolute time is still one.
    assert!(matches!(
        aged_tests("escalates<2026-11-27")[0].1,
        Test::Compare(_, _, Bound::At(_))
    ));
    // Overdue: past the escalation time now; `no` (or a negated `yes`) the rest.
    assert_eq!(aged_tests("overdue:yes"), [escalates(Less, 0)]);
    assert_eq!(aged_tests("overdue:no"), [(true, escalates(Less, 0).1)]);
    assert_eq!(aged_tests("-overdue:no"), [escalates(Less, 0)]);
    assert_eq!(aged_tests("-overdue:yes"), [(true, escalates(Less, 0).1)]);
    // `owner:me` is the person asking; in quotes it is the text "me".
    assert_eq!(
        aged_tests("owner:me"),
        [(false, Test::Is(Field::Owner, Value::Text("ops:kim".into())))]
    );
    assert_eq!(
        aged_tests("owner:\"me\""),
        [(false, Test::Is(Field::Owner, Value::Text("me".into())))]
    );
    // No clock word or sign: refused, saying how a time is written.
    let (_, said) = refused("escalates<soon", Scope::AgedJobs);
    assert!(said.contains("escalates<now or escalates<+1h"), "{said}");
    // Overdue is a job owner's: callbacks have no such field.
    let (_, said) = refused("overdue:yes", Scope::Callbacks);
    assert!(said.contains("does not apply"), "{said}");
}
