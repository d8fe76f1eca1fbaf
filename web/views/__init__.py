"""Page views, one module per audience: ``public`` (anyone, published events only)."""
