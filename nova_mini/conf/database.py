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

The options themselves belong to oslo.db; this module sets the default
connection (a SQLite file under ``state_path``) and lists them for the
sample config.
"""

import copy

from oslo_db import options as db_options

_DEFAULT_CONNECTION = 'sqlite:///$state_path/nova_mini.sqlite'


def register_opts(conf):
    db_options.set_defaults(conf, connection=_DEFAULT_CONNECTION)


def list_opts():
    # NOTE: set_defaults() changes the default on a ConfigOpts, not on the
    # options, so the sample config learns it from copies made here.
    opts = copy.deepcopy(db_options.database_opts)
    for opt in opts:
        if opt.name == 'connection':
            opt.default = _DEFAULT_CONNECTION
    return {'database': opts}
