//! Damage made by hand in a ledger's pages, as a disk or a careless tool would: the
//! tests of what every command does with a damaged ledger, and of restoring one.

use std::path::Path;

use rusqlite::Connection;

/// The ledger's bytes, and the offset in them of the root page of table or index `name`.
pub fn file_and_root(db: &Path, name: &str) -> (Vec<u8>, usize) {
    let conn = Connection::open(db).unwrap();
    let root: i64 = conn
        .query_row(
            "SELECT rootpage FROM sqlite_schema WHERE name = ?1",
            [name],
            |r| r.get(0),
        )
        .unwrap();
    drop(conn);
    assert_eq!(jobledger::store::PAGE_SIZE, 8192);
    let offset = (usize::try_from(root).unwrap() - 1) * PAGE;
    (std::fs::read(db).unwrap(), offset)
}

/// The size of a ledger's pages (a new ledger's; the tests make theirs new).
pub const PAGE: usize = 8192;

/// Changes two bytes of the first leaf of the callbacks table, found from its root
/// (an interior page: its first cell begins with the left-most child's number): its
/// count of cells says 6, so the rows after the sixth are no longer read, and no error
/// says so. Returns the count of cells it held.
pub fn damage_a_callbacks_leaf(db: &Path) -> u16 {
    let (mut file, root) = file_and_root(db, "callbacks");
    assert_eq!(file[root], 0x05, "the callbacks root is an interior page");
    let cell = root + usize::from(u16::from_be_bytes([file[root + 12], file[root + 13]]));
    let leaf = (u32::from_be_bytes(file[cell..cell + 4].try_into().unwrap()) as usize - 1) * PAGE;
    assert_eq!(file[leaf], 0x0D, "a leaf of the callbacks table");
    let cells = u16::from_be_bytes([file[leaf + 3], file[leaf + 4]]);
    assert!(cells > 40, "a full leaf ({cells} cells)");
    file[leaf + 3..leaf + 5].copy_from_slice(&[0x00, 0x06]);
    std::fs::write(db, file).unwrap();
    cells
}
