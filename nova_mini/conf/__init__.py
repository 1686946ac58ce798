"""Configuration options of nova_mini, one module per option group.

``CONF`` is oslo.config's global object: oslo.messaging 18 registers its
tracing options only there, so every daemon uses it, as Nova does.
"""

from oslo_config import cfg

from nova_mini.conf import api
from nova_mini.conf import database
from nova_mini.conf import default
from nova_mini.conf import metadata
from nova_mini.conf import scheduler
from nova_mini.conf import upgrade_levels
from nova_mini.conf import vendordata_dynamic_auth

CONF = cfg.CONF

# Every module listed here must provide register_opts(conf) and
# list_opts(); nova_mini.conf.opts checks that.
MODULES = (default, api, database, metadata, scheduler, upgrade_levels,
           vendordata_dynamic_auth)

for _module in MODULES:
    _module.register_opts(CONF)
