"""Go's match glue: the GTP referee that scores matches between engines (:mod:`.gtp_referee`)."""
