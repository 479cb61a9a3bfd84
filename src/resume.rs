//! Resume (spec §6): repairing a conversation so the API accepts it again.
