"""Field types for nova_mini's objects (oslo.versionedobjects' plus ours)."""

from oslo_versionedobjects.fields import *  # noqa: F401,F403
