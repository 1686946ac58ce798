"""TraitsFilter: every required trait, no forbidden one.

The database query already asks this of every candidate; the filter makes
the rule hold whatever else produced the candidates, and names the traits
in the debug log when it does not.
"""

from nova_mini.scheduler import filters


class TraitsFilter(filters.BaseNodeFilter):
    needs_traits = True

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
