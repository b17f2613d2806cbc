//! Intentionally empty: this package only holds the end-to-end tests in `tests/`.
