"""LexFlip: does a judge or metric read legal force? The judge-validation suite (docs/method.md)."""
