//! Empty: the check is tests/read_dump.rs.
