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

"""Run, as a script, by the python of a venv that holds nova_mini's wheel,
requirements.txt and the sample vendordata service's wheel only
(test_wheel_install.py copies it out of the tree first), with arguments
DISTRIBUTION=PACKAGE: for each, where the package was imported from, the
entry points the installed distribution declares, each loaded (the
oslo.config and oslo.policy listings also called, as their generators
do), and every module of the package but its tests imported. One JSON
object on standard output; what failed is in its ``errors``, never an
exception.
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


def _check(report, dist_name, package_name):
    found = report['distributions'][dist_name] = {
        'entry_points': {}, 'modules': 0}
    try:
        package = importlib.import_module(package_name)
    except Exception:
        report['errors'].append(_failure('import %s' % package_name))
        return
    found['file'] = package.__file__

    dist = importlib.metadata.distribution(dist_name)
    for ep in dist.entry_points:
        found['entry_points'].setdefault(ep.group, {})[ep.name] = ep.value
        what = '[%s] %s = %s' % (ep.group, ep.name, ep.value)
        try:
            loaded = ep.load()
            if ep.group in CALLED:
                list(loaded())
        except Exception:
            report['errors'].append(_failure(what))

    tests = package_name + '.tests'
    for module in pkgutil.walk_packages(package.__path__,
                                        package_name + '.'):
        if module.name == tests or module.name.startswith(tests + '.'):
            continue    # test-requirements.txt's packages
        try:
            importlib.import_module(module.name)
        except Exception:
            report['errors'].append(_failure('import %s' % module.name))
        else:
            found['modules'] += 1


def main(argv):
    report = {'prefix': sys.prefix, 'errors': [], 'distributions': {}}
    for arg in argv:
        dist_name, package_name = arg.split('=')
        _check(report, dist_name, package_name)
    print(json.dumps(report))


if __name__ == '__main__':
    main(sys.argv[1:])
