#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""A ConfigOpts of the sample service's own, parsed from nothing."""

from oslo_config import cfg
from oslo_log import log as logging
import pytest

from nova_mini_vendordata_sample import conf as sample_conf


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
