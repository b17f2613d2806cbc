//! The glommio runtime under test (being written).
