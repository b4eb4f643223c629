# Generators for the lesson pages, one module per lesson or page: each defines
# GENERATORS = {"name": function} and optionally figures(plt). docgen/docs.py
# loads them all; helpers (load, table, fmt, caption, pick, FIGURES) come
# from "from tables import ...".
