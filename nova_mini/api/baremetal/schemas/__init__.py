

"""Request schemas of the bare-metal API, one module per resource."""

# The largest value of the signed 32-bit integer columns (Ironic's and
# ours) that numbers of the API end in: node sizes, step priorities.
MAX_INT = 2 ** 31 - 1
