"""The registry of flavor extra specs: what each means and which values it
takes. ``base`` defines the types, the namespace modules the in-tree
definitions, ``registry`` the lookup and validation."""
