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

"""Start-up of every console script: options, logging, objects."""

import sys

from oslo_config import cfg
from oslo_log import log as logging

from nova_mini import conf
from nova_mini.conf import opts
from nova_mini import objects
from nova_mini import rpc
from nova_mini import version

CONF = conf.CONF
LOG = logging.getLogger(__name__)


def parse_args(argv, default_config_files=None):
    """Parse the command line and config files and set up logging.

    A bad command line, config file or option value ends the program with
    one clear message and exit status 1, never a traceback.

    :param argv: the full command line, program name first.
    :param default_config_files: the files read when none is given
        (None: oslo.config's search).
    """
    prog = argv[0].rsplit('/', 1)[-1]
    if not _logging_registered(CONF):
        logging.register_options(CONF)
    rpc.register_opts(CONF)
    opts.set_defaults()
    try:
        CONF(argv[1:], project='nova_mini', prog=prog,
             version=version.version_string(),
             default_config_files=default_config_files)
        _check_values(CONF)
    except cfg.Error as exc:
        sys.stderr.write('%s: configuration error: %s\n' % (prog, exc))
        sys.exit(1)
    logging.setup(CONF, 'nova_mini')
    objects.register_all()


def log_options():
    """Log every option's value at DEBUG, as a daemon starts (as Nova's
    services do); options declared ``secret`` show as ``****``.
    """
    CONF.log_opt_values(LOG, logging.DEBUG)


def _logging_registered(conf):
    return 'debug' in conf


def _check_values(conf):
    """Convert every option value now, so that a bad one is reported at
    start-up rather than on first use.
    """
    for name in list(conf):
        value = conf[name]
        if isinstance(value, cfg.ConfigOpts.GroupAttr):
            for opt_name in list(value):
                value[opt_name]
