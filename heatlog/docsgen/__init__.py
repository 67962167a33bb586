"""The generators of committed files: docs/cli.md (cli), docs/events.md and the union event schema (events),
docs/cards.md (cards), the sample and golden races of replays/ and tests/golden (samples). A test keeps each
generated file equal to what its generator writes."""
