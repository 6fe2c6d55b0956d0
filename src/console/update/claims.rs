//! `t`: claims the selected held or quarantined case for the reviewer ("on it"), or
//! releases their own claim; the row then shows who is on it to everyone.

use crate::review::claims::{ClaimDone, ClaimError, toggle};
use crate::store::StoreError;

use super::super::model::Flash;
use super::App;
use super::read_only::why_read_only;

pub(super) fn toggle_claim(app: &mut App) -> Result<(), StoreError> {
    if app.model.writes_off() {
        app.model.flash = Flash::error(why_read_only(&app.model));
        return Ok(());
    }
    let Some(row) = app.model.selected_callback().cloned() else {
        app.model.flash = Flash::error("claims are on held or quarantined callbacks: select one");
        return Ok(());
    };
    let now = app.model.now;
    let said = match toggle(&mut app.ledger, &row, &app.model.reviewer, now) {
        Ok(ClaimDone::Claimed(claim)) => Flash::passing(
            format!(
                "#{} is yours (on it) until {}; t again releases it.",
                row.seq,
                claim.until.readable(now)
            ),
            app.passing_for,
        ),
        Ok(ClaimDone::Released) => Flash::passing(
            format!("Your claim on #{} is released.", row.seq),
            app.passing_for,
        ),
        Err(ClaimError::Store(e)) => return Err(e),
        Err(refused) => Flash::error(crate::inert::inert(&refused.to_string()).into_owned()),
    };
    app.reload_page()?;
    app.reload_detail()?;
    app.model.flash = said;
    Ok(())
}
