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

"""Write the JSON schema Glance validates metadef namespaces against.

Run with a Python that has Glance installed (never nova_mini's own
environment), e.g.::

    python3 -m venv /tmp/glancevenv
    /tmp/glancevenv/bin/pip install glance
    /tmp/glancevenv/bin/python dump_glance_schema.py \
        glance_metadef_namespace_schema.json

The schema is the one the ``POST /v2/metadefs/namespaces`` API uses
(``glance.api.v2.metadef_namespaces.get_schema().raw()``), with a
``$comment`` naming the Glance release it came from; validators ignore
that keyword.
"""

from importlib import metadata
import json
import sys


def main(path):
    from glance.api.v2 import metadef_namespaces

    version = metadata.version('glance')
    schema = {'$comment': (
        'Extracted from glance %s: glance.api.v2.metadef_namespaces.'
        'get_schema().raw(), by dump_glance_schema.py. Glance also limits '
        'property names to 80 characters (its database column).' % version)}
    schema.update(metadef_namespaces.get_schema().raw())
    with open(path, 'w') as out:
        json.dump(schema, out, indent=2, sort_keys=True)
        out.write('\n')
    print('Wrote the metadef namespace schema of glance %s to %s'
          % (version, path))


if __name__ == '__main__':
    main(sys.argv[1])
