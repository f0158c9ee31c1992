"""Trained models shipped with corpustool (justext_learned.json: scripts/train_model.py)."""
