"""Paced XCP/TCP small-buffer paper (Alparslan, Arakawa, Murata) experiments."""
