import FocalServer

/// Stores besides SQLite that the store suite also runs against (PostgreSQL when available).
func extraStores() throws -> [(String, any OverrideStore, () -> Void)] { [] }
