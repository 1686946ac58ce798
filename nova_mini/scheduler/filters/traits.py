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

"""TraitsFilter: every required trait, no forbidden one.

The database query already asks this of every candidate; the filter makes
the rule hold whatever else produced the candidates, and names the traits
in the debug log when it does not.
"""

from nova_mini.scheduler import filters


class TraitsFilter(filters.BaseNodeFilter):
    needs_traits = True
    # A new image may require traits the node lacks.
    run_on_rebuild = True

    def check(self, node, spec_obj):
        traits = node.traits or frozenset()
        missing = sorted(set(spec_obj.required_traits) - traits)
        forbidden = sorted(set(spec_obj.forbidden_traits) & traits)
        reasons = []
        if missing:
            reasons.append('lacks %s' % ', '.join(missing))
        if forbidden:
            reasons.append('has forbidden %s' % ', '.join(forbidden))
        return '; '.join(reasons) or None
