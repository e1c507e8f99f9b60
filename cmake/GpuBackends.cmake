# GPU backends: shared libraries that dcukit loads at run time (placeholder until they land).
