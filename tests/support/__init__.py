"""What the tests share: real git bases, real-shaped transcripts, the scenarios, row helpers."""
