"""torch.distributed._tools: module-hierarchy tracking (mod_tracker.ModTracker)."""
