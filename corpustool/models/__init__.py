"""Trained models shipped with corpustool (justext_learned.json: scripts/make/train_model.py)."""
