"""A lesson base (LESSONS/ in git): ``files`` parses lesson files, the index and the hit
journal; ``shapes`` holds the lesson id, the folder's name and the sleep marker line;
``locate`` finds bases and fingerprints them; ``reader`` reads one with its git history into
a snapshot; ``loading`` turns snapshots into the raw tables of an ingest."""
