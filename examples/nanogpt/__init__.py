"""A small GPT, split across modules the way real projects are (model, layers, utils, train)."""
