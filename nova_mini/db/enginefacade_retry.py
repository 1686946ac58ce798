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

"""oslo.db's transaction context manager, with a hook at outermost writers.

The only module of nova_mini that uses private names of oslo.db (oslo.db
18.1.1, ``oslo_db.sqlalchemy.enginefacade``):

``_TransactionContextManager``
    the class of the object ``enginefacade.transaction_context()`` returns,
    subclassed so that every ``.writer`` decorator takes the hook: the
    modifiers (``.writer``, ``.reader``, ``.independent``, ...) build
    their manager with ``self.__class__``, so no writer can be left out.
``_mode`` and ``_WRITER``
    whether a decorator is a writer; oslo.db has no public accessor.
``_independent``
    whether a writer opens its own transaction even inside another one.

Whether a transaction is under way uses the public ``transaction_ctx``
property that ``enginefacade.transaction_context_provider`` adds to the
context class.

Why: a writer that cannot have its locks must run again as a whole; in
the API write mix benchmark (tools/bench/README.md, ``api_write_mix``),
2667 of 3906 extra-spec POSTs on SQLite answered 500 without the retry.
oslo.db's own ``wrap_db_retry`` has to be put on each writer by hand and
cannot tell an outermost writer from a nested one. A writer nested in
another transaction is not retried by itself: the outermost one runs the
whole transaction again.

tests/functional/db/test_enginefacade_private_names.py fails, naming the
attribute, when oslo.db changes any of these.
"""

import functools
import inspect

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade

PRIVATE_NAMES = ('_TransactionContextManager', '_WRITER',
                 '_mode', '_independent')


def in_transaction(context):
    """Return whether ``context`` has a transaction under way in this thread.

    :param context: a context of a class decorated with
        ``enginefacade.transaction_context_provider``.
    :returns: True inside a reader or writer block of the context.
    """
    try:
        return context.transaction_ctx is not None
    except db_exc.NoEngineContextEstablished:
        return False


class _RetryingTransactionContextManager(
        enginefacade._TransactionContextManager):
    """A transaction context manager whose writers that open the
    transaction run through ``run_outermost_writer``.
    """

    # run_outermost_writer(transaction, args, kwargs), set by a subclass
    # that retrying_context_manager() makes.
    run_outermost_writer = None

    def __call__(self, fn):
        transaction = super().__call__(fn)
        if self._mode is not enginefacade._WRITER:
            return transaction
        # The same rule as oslo.db's: the context is the first argument,
        # or the second after self/cls.
        arg_names = inspect.getfullargspec(fn).args
        index = 1 if arg_names[0] in ('self', 'cls') else 0
        context_name = arg_names[index]
        run_outermost_writer = type(self).run_outermost_writer

        @functools.wraps(fn)
        def writer(*args, **kwargs):
            context = kwargs.get(context_name) or args[index]
            if not self._independent and in_transaction(context):
                return transaction(*args, **kwargs)
            return run_outermost_writer(transaction, args, kwargs)

        return writer


def retrying_context_manager(run_outermost_writer):
    """Return a root transaction context manager with a hook at writers.

    :param run_outermost_writer: ``f(transaction, args, kwargs)``, called
        instead of each ``.writer``-decorated function that opens its
        transaction (or is ``.independent``); it runs
        ``transaction(*args, **kwargs)`` as often as it sees fit.
    :returns: a manager used as ``enginefacade.transaction_context()``'s.
    """
    manager_class = type('RetryingTransactionContextManager',
                         (_RetryingTransactionContextManager,),
                         {'run_outermost_writer':
                          staticmethod(run_outermost_writer)})
    return manager_class()
