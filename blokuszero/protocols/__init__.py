"""Wire formats for talking to other programs (GTP now; GGP HTTP and UECda later)."""
