//! The compio runtime under test (being written).
