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

"""The [database] group: oslo.db's options with nova_mini's defaults.

Most options belong to oslo.db; this module sets the default
connection (a SQLite file under ``state_path``), adds how long a write
waits for a busy database (``db/retry.py``; oslo.db's own
``db_retry_interval`` counts whole seconds, too coarse for lock waits;
its ``db_inc_retry_interval`` and ``db_max_retries`` apply as they are)
and lists them for the sample config.
"""

import copy

from oslo_config import cfg
from oslo_db import options as db_options

_DEFAULT_CONNECTION = 'sqlite:///$state_path/nova_mini.sqlite'

write_wait_opts = [
    cfg.FloatOpt('write_wait_timeout', default=30.0, min=0.1,
                 help='Seconds a write may wait for a busy database '
                      '(locks held by other writers, a deadlock, a full '
                      'connection pool, a lost connection) before the API '
                      'gives up and answers 503 with a Retry-After header. '
                      'The write is retried in the meantime; on SQLite '
                      'this is also the busy timeout of each statement.'),
    cfg.FloatOpt('write_retry_interval', default=0.02, min=0.001,
                 help='Seconds before the first retry of a write '
                      'transaction that met a busy database; doubled at '
                      'each retry when db_inc_retry_interval is true, up '
                      'to write_max_retry_interval.'),
    cfg.FloatOpt('write_max_retry_interval', default=1.0, min=0.001,
                 help='The longest pause, in seconds, between two retries '
                      'of a write transaction.'),
]


def register_opts(conf):
    db_options.set_defaults(conf, connection=_DEFAULT_CONNECTION)
    conf.register_opts(write_wait_opts, group='database')


def list_opts():
    # NOTE: set_defaults() changes the default on a ConfigOpts, not on the
    # options, so the sample config learns it from copies made here.
    opts = copy.deepcopy(db_options.database_opts)
    for opt in opts:
        if opt.name == 'connection':
            opt.default = _DEFAULT_CONNECTION
    return {'database': opts + write_wait_opts}
