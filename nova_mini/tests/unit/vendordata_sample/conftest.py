"""A ConfigOpts of the sample service's own, parsed from nothing."""

from oslo_config import cfg
from oslo_log import log as logging
import pytest

from nova_mini.vendordata_sample import conf as sample_conf


@pytest.fixture
def conf():
    """The sample's options with their defaults; ``conf.set_override``
    to change them.
    """
    conf = cfg.ConfigOpts()
    logging.register_options(conf)
    sample_conf.register_opts(conf)
    conf([], project='nova_mini', default_config_files=[],
         default_config_dirs=[])
    yield conf
    conf.reset()
