"""Wire formats for talking to other programs: GTP (gtp.py, on the byte lines of lines.py), the
UECda Daihinmin tables over TCP (uecda.py) and the GGP match protocol's HTTP / ACL messages
(ggp_http.py)."""
