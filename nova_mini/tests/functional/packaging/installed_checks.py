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

"""Run, as a script, by the python of a venv that holds nova_mini's wheel
and requirements.txt only (test_wheel_install.py copies it out of the
tree first): where nova_mini was imported from, the entry points the
installed distribution declares, each loaded (the oslo.config and
oslo.policy listings also called, as their generators do), and every
module of the package but its tests imported. One JSON object on
standard output; what failed is in its ``errors``, never an exception.
"""

import importlib
import importlib.metadata
import json
import pkgutil
import sys
import traceback

# Entry points their consumers call without arguments: the lists of
# oslo-config-generator and oslopolicy-sample-generator.
CALLED = ('oslo.config.opts', 'oslo.policy.policies')


def _failure(what):
    exc_type, exc, _ = sys.exc_info()
    last = traceback.extract_tb(exc.__traceback__)[-1]
    return '%s: %s: %s (%s:%d)' % (what, exc_type.__name__, exc,
                                   last.filename, last.lineno)


def main():
    report = {'prefix': sys.prefix, 'errors': [], 'entry_points': {},
              'modules': 0}
    try:
        import nova_mini
    except Exception:
        report['errors'].append(_failure('import nova_mini'))
        print(json.dumps(report))
        return
    report['nova_mini'] = nova_mini.__file__

    dist = importlib.metadata.distribution('nova_mini')
    for ep in dist.entry_points:
        report['entry_points'].setdefault(ep.group, {})[ep.name] = ep.value
        what = '[%s] %s = %s' % (ep.group, ep.name, ep.value)
        try:
            loaded = ep.load()
            if ep.group in CALLED:
                list(loaded())
        except Exception:
            report['errors'].append(_failure(what))

    for module in pkgutil.walk_packages(nova_mini.__path__, 'nova_mini.'):
        if module.name.startswith('nova_mini.tests'):
            continue    # test-requirements.txt's packages
        try:
            importlib.import_module(module.name)
        except Exception:
            report['errors'].append(_failure('import %s' % module.name))
        else:
            report['modules'] += 1
    print(json.dumps(report))


if __name__ == '__main__':
    main()
