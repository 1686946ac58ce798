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

"""nova-mini-vendordata-sample: the sample vendordata service.

    nova-mini-vendordata-sample --config-file /etc/nova_mini/vendordata-sample.conf

Without ``--config-file`` it reads /etc/nova_mini/vendordata-sample.conf
when that exists. Like the other nova_mini daemons it runs in the
foreground under gunicorn, tells systemd when it is ready and stops
cleanly on SIGTERM.
"""

import os
import sys

from oslo_config import cfg
from oslo_log import log as logging

from nova_mini import service
from nova_mini import version
from nova_mini_vendordata_sample import app
from nova_mini_vendordata_sample import conf as sample_conf

LOG = logging.getLogger(__name__)

NAME = 'nova-mini-vendordata-sample'
DEFAULT_CONFIG_FILE = '/etc/nova_mini/vendordata-sample.conf'


def parse_args(argv):
    """A ConfigOpts of the service's own, parsed; exits 1 with one line on
    a bad command line, config file or option value.
    """
    conf = cfg.ConfigOpts()
    logging.register_options(conf)
    sample_conf.register_opts(conf)
    default_files = ([DEFAULT_CONFIG_FILE]
                     if os.path.exists(DEFAULT_CONFIG_FILE) else [])
    try:
        conf(argv[1:], project='nova_mini', prog=NAME,
             version=version.version_string(),
             default_config_files=default_files, default_config_dirs=[])
        # Convert every value now: a bad one is reported at start-up.
        for name in conf.vendordata_sample:
            conf.vendordata_sample[name]
    except cfg.Error as exc:
        sys.stderr.write('%s: configuration error: %s\n' % (NAME, exc))
        sys.exit(1)
    logging.setup(conf, 'nova_mini')
    return conf


def main(argv=None):
    conf = parse_args(argv or sys.argv)
    options = conf.vendordata_sample
    if options.auth_strategy == sample_conf.NOAUTH:
        LOG.warning('auth_strategy = noauth: every caller is trusted with '
                    'the roles %s. Use it for tests and benchmarks only.',
                    ', '.join(options.allowed_roles))
    if options.response_delay:
        LOG.warning('response_delay = %s: every answer waits that long '
                    '(for tests and benchmarks only).',
                    options.response_delay)
    problem = None
    try:
        # Built once here so that a bad [keystone_authtoken] stops the
        # service now; each worker then builds its own.
        app.build_app(conf)
        if options.auth_strategy == sample_conf.KEYSTONE:
            for name in conf.keystone_authtoken:
                conf.keystone_authtoken[name]
    except (cfg.Error, ValueError) as exc:
        problem = str(exc)
    if problem:
        service.fail('Configuration error: %s', problem)
    service.WSGIServer(
        NAME, lambda: app.build_app(conf),
        host=options.bind_host, port=options.bind_port,
        workers=options.workers, threads=options.threads_per_worker,
        graceful_timeout=options.graceful_shutdown_timeout).run()
