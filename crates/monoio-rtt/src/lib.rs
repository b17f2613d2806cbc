//! The monoio runtime under test (being written).
