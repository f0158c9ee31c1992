"""Helpers the tests share (no tests here): paths, authored markup, the backend switch."""
