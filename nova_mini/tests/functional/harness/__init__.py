"""Real services for live tests and for tools/stack.sh: RabbitMQ, Keystone
(PyPI, in its own venv) and nova_mini's daemons, each bounded in time and
stopped afterwards. ``python -m nova_mini.tests.functional.harness --help``
is the command line.
"""

from nova_mini.tests.functional.harness.stack import Stack  # noqa: F401
from nova_mini.tests.functional.harness.util import HarnessError  # noqa: F401
