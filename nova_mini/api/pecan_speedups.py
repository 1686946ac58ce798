# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""Two speed-ups of pecan's routing: its argspec look-ups cached (the one
change that reaches into pecan's private parts), and controllers made for
each request checked once per class (``SubResourceController``, plain
subclassing).

pecan asks for the argspec of a controller method several times per
request (routing, RestController dispatch, keyword filtering) through
``pecan.util.getargspec``, which calls the module-level name
``pecan.util._getargspec`` (``pecan.compat.getargspec``). That function
builds a new namedtuple *class* and a full ``inspect.Signature`` on every
call: measured with ``tools/bench/flavors_api.py``'s request path
in-process, 0.36 ms of ``GET /flavors/detail`` (1.97 -> 1.61 ms) and
0.5 ms of the extra-spec POST (1.76 -> 1.23 ms). pecan has no public hook
for it, so the name is replaced here, and nowhere else.

``nova_mini/tests/unit/api/test_pecan_speedups.py`` fails loudly when
pecan changes what this relies on (the name, its signature, the shape of
its answer, or the callers still going through it).
"""

import collections
import functools
import inspect
import types

import pecan.compat
from pecan import rest
import pecan.util

ArgSpec = collections.namedtuple('ArgSpec', 'args varargs keywords defaults')

# What is replaced, kept for the tests (and to undo).
PECAN_GETARGSPEC = pecan.compat.getargspec


@functools.lru_cache(maxsize=None)
def _function_argspec(func):
    args, varargs, keywords, defaults = inspect.getfullargspec(func)[:4]
    return ArgSpec(args, varargs, keywords, defaults)


def cached_getargspec(func):
    """Return pecan's argspec of ``func``, computed once per function.

    A function's argspec never changes, so it is kept, keyed on the
    function object itself (the cache holds a reference: it cannot be
    confused with a later object at the same address). A bound method
    shares its function's entry: pecan's argspec keeps ``self`` either
    way. Anything else (a callable object) is not cached.

    :param func: a function or bound method.
    :returns: ``ArgSpec(args, varargs, keywords, defaults)``, as
        ``pecan.compat.getargspec`` answers.
    """
    function = getattr(func, '__func__', func)
    if isinstance(function, types.FunctionType):
        return _function_argspec(function)
    return PECAN_GETARGSPEC(func)


class SubResourceController(rest.RestController):
    """A RestController made for each request, such as a sub-resource
    that keeps its parent's id (``FlavorExtraSpecsController(flavor_id)``).

    pecan's ``RestController.__new__`` checks the class for ``route=``
    arguments (which REST controllers cannot use) with
    ``inspect.getmembers`` on every instantiation: 4 % of the extra-spec
    POST. A class does not change, so here the check runs once per class,
    on its first instance, and raises as pecan's does.
    """

    def __new__(cls, *args, **kwargs):
        if cls not in _CHECKED_CLASSES:
            rest.RestController.__new__(cls)    # pecan's check
            _CHECKED_CLASSES.add(cls)
        return object.__new__(cls)


_CHECKED_CLASSES = set()


def install():
    """Make pecan's routing use ``cached_getargspec`` (idempotent)."""
    pecan.util._getargspec = cached_getargspec


install()
