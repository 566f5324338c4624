"""ranker: store candidate parses, rank them, and measure how good the choice was."""
__version__ = "0.1.0"
