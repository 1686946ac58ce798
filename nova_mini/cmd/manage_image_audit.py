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

"""``nova-mini-manage image-properties audit``: every image in Glance
checked against the image property registry.

Glance is reached as the API reaches it (the ``[glance]`` adapter and
session options: ``service_type``, ``valid_interfaces``,
``region_name``, ``endpoint_override``, TLS), but with the service's own
credentials instead of a caller's token: those of
``[keystone_authtoken]`` (the user nova-mini-api checks tokens as) when
``[api] auth_strategy = keystone``; under ``noauth2`` Glance is called
without a token at ``[glance] endpoint_override``. Images are listed
with ``visibility=all``, a page at a time, following Glance's ``next``
links.

Each image's properties are checked as Nova reads them
(``registry.validate``), and each finding has a kind:

* ``invalid``: a value Nova refuses (its "Invalid image metadata"
  message: a boot or rebuild from the image is a 400);
* ``misspelled``: a name the registry does not know but that resembles
  names it knows (Nova ignores it: the setting has no effect);
* ``ignored``: a numbered key (``hw_numa_cpus.N``) past a gap, which Nova
  never reads;
* ``deprecated``: a name Nova still reads but is retiring;
* ``unknown``: a name the registry does not know and resembles nothing
  (kept raw, as Nova keeps it);
* ``conflict``: a flavor the image's owner can boot with that Nova
  refuses the image with (``image_flavor_rules.check``, Nova's
  message): each enabled public flavor and each private one shared with
  the owner, at most ``--max-flavors`` read from ``[database]``.

Exit status: 0 when no image has an ``invalid``, ``misspelled``,
``ignored`` or ``conflict`` finding (with ``--strict``: no finding at
all), 1 otherwise, 2 when Glance cannot be reached or refuses the
listing, or the flavors cannot be read.
"""

import difflib
import json
import sys

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
import prettytable

from nova_mini.api.compute import image_flavor_rules
from nova_mini.api.validation.image_properties import registry as ip_registry
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini import exception
from nova_mini.image import glance
from nova_mini import objects
from nova_mini.objects import image_meta as image_meta_obj

# Images asked for per page.
DEFAULT_PAGE_SIZE = 100
# Flavors read (enabled ones, by flavorid) to check images against.
DEFAULT_MAX_FLAVORS = 1000
FLAVOR_BATCH = 500
# The group holding the service's credentials (keystonemiddleware's).
AUTH_GROUP = 'keystone_authtoken'
# Properties of Glance's own reserved namespace (os_glance_import_task,
# os_glance_importing_to_stores, ...): Glance sets them, not users.
GLANCE_RESERVED_PREFIX = 'os_glance_'

# How alike (difflib's ratio) an unknown name and the known name it
# resembles most must be for the name to count as misspelled
# (hw_cpu_polcy: 0.96; site_owner and img_owner_id: 0.64).
MISSPELLED_RATIO = 0.8

INVALID = 'invalid'
MISSPELLED = 'misspelled'
IGNORED = 'ignored'
DEPRECATED = 'deprecated'
UNKNOWN = 'unknown'
CONFLICT = 'conflict'
# The kinds that make the exit status 1 without --strict.
ERRORS = (INVALID, MISSPELLED, IGNORED, CONFLICT)
KINDS = (INVALID, MISSPELLED, IGNORED, CONFLICT, DEPRECATED, UNKNOWN)

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_UNREACHABLE = 2


class GlanceUnreachable(Exception):
    """Glance cannot be reached or refuses to list images."""


def _auth(conf):
    """The service's auth plugin, or None (noauth2: no token)."""
    if conf.api.auth_strategy != 'keystone':
        if not conf.glance.endpoint_override:
            raise GlanceUnreachable(
                '[api] auth_strategy is %s and [glance] endpoint_override '
                'is not set: there is no Glance to ask' %
                conf.api.auth_strategy)
        return None
    ks_loading.register_auth_conf_options(conf, AUTH_GROUP)
    auth = ks_loading.load_auth_from_conf_options(conf, AUTH_GROUP)
    if auth is None:
        raise GlanceUnreachable(
            '[%s] has no auth_type: the audit reads Glance with the '
            "service's credentials" % AUTH_GROUP)
    return auth


def list_images(conf, page_size=DEFAULT_PAGE_SIZE):
    """Every image Glance shows the service, a page at a time.

    :raises GlanceUnreachable: no endpoint, no answer, or an answer
        other than 200.
    """
    auth = _auth(conf)
    adapter = glance.adapter(auth)
    path = '/v2/images?visibility=all&limit=%d' % page_size
    seen = set()
    while path:
        try:
            resp = adapter.get(path, raise_exc=False,
                               headers={'Accept': 'application/json'})
        except ks_exc.EndpointNotFound:
            raise GlanceUnreachable(
                'the service catalog has no endpoint of type %r; set '
                '[glance] endpoint_override' % conf.glance.service_type)
        except ks_exc.ClientException as exc:
            raise GlanceUnreachable('%s: %s' % (exc.__class__.__name__,
                                                exc))
        if resp.status_code != 200:
            raise GlanceUnreachable('GET %s: Glance answered HTTP %d: %s' % (
                path, resp.status_code, resp.text[:300]))
        body = resp.json()
        for image in body.get('images', ()):
            if image['id'] not in seen:
                seen.add(image['id'])
                yield image
        # Glance's next link is relative to its root (/v2/images?...).
        path = body.get('next')


def _misspelled(registry, key):
    """Whether ``key`` is a near miss of a known name (the registry's
    best suggestion, at least MISSPELLED_RATIO alike): a custom name that
    merely shares a prefix with one is not.
    """
    near = registry.suggest(key, count=1)
    return bool(near) and difflib.SequenceMatcher(
        None, key, near[0]).ratio() >= MISSPELLED_RATIO


def findings_of(registry, image):
    """The findings of one image: ``[(kind, key, message)]``."""
    properties = {
        key: value for key, value in
        image_meta_obj.glance_properties(image).items()
        if not key.startswith(GLANCE_RESERVED_PREFIX)}
    verdict = ip_registry.validate(registry, properties,
                                   ip_registry.PERMISSIVE)
    # In permissive mode every error is a refused value, in the order of
    # the properties.
    refused = [key for key in properties
               if key not in verdict.values and key not in verdict.unknown
               and key not in verdict.ignored]
    found = [(INVALID, key, ip_registry.NOVA_MESSAGE_PREFIX + error)
             for key, error in zip(refused, verdict.errors)]
    for key in verdict.ignored:
        found.append((IGNORED, key, ip_registry._gap_message(
            key, registry.lookup(key))))
    for key, prop in verdict.deprecated:
        message = "Image property '%s' is %s." % (key,
                                                  prop.support.describe())
        if prop.support.note:
            message += ' ' + prop.support.note
        found.append((DEPRECATED, key, message))
    for key in verdict.unknown:
        if _misspelled(registry, key):
            found.append((MISSPELLED, key, ip_registry.unknown_key_message(
                registry, key) + ' Nova ignores it.'))
        else:
            found.append((UNKNOWN, key, "Image property '%s' is not a known "
                          "image property; Nova keeps it as a raw property."
                          % key))
    return _ordered(found)


def _ordered(found):
    order = {kind: n for n, kind in enumerate(KINDS)}
    return sorted(found, key=lambda f: (order[f[0]], f[1]))


def read_flavors(context, limit=DEFAULT_MAX_FLAVORS):
    """The enabled flavors (at most ``limit``, by flavorid) with, for a
    private one, the projects it is shared with.

    :returns: ``(flavors, more)``: the flavors, and whether there are more
        than ``limit``.
    """
    flavors = []
    marker = None
    while len(flavors) <= limit:
        batch = objects.FlavorList.get_all(
            context, filters={'is_public': None, 'disabled': False},
            limit=FLAVOR_BATCH, marker=marker)
        flavors.extend(batch)
        if len(batch) < FLAVOR_BATCH:
            break
        marker = batch[-1].flavorid
    for flavor in flavors[:limit]:
        if not flavor.is_public and not flavor.obj_attr_is_set('projects'):
            flavor.obj_load_attr('projects')    # one query a flavor
    return flavors[:limit], len(flavors) > limit


def flavors_of(flavors, owner):
    """The flavors a project can boot with: the public ones and the
    private ones shared with it.
    """
    return [flavor for flavor in flavors if flavor.is_public or
            (owner is not None and owner in flavor.projects)]


def conflicts_of(image, flavors):
    """The flavors of ``flavors`` Nova refuses ``image`` with at boot:
    ``[(CONFLICT, 'flavor <flavorid>', Nova's message)]``.
    """
    # Typed by check, as at boot.
    meta = image_meta_obj.ImageMeta.untyped_from_glance(image)
    found = []
    for flavor in flavors:
        try:
            image_flavor_rules.check(flavor, meta)
        except exception.Invalid as exc:
            found.append((CONFLICT, 'flavor %s' % flavor.flavorid,
                          str(exc)))
    return found


def audit(conf):
    """``image-properties audit``: print the findings of every image.

    :returns: the exit status (see the module).
    """
    command = conf.command
    registry = ip_registry.build()
    report = []
    try:
        for image in list_images(conf, command.page_size):
            report.append((image, findings_of(registry, image)))
    except GlanceUnreachable as exc:
        print('Cannot list the images in Glance: %s' % exc, file=sys.stderr)
        return EXIT_UNREACHABLE
    if command.flavors and report:
        try:
            db_api.configure(conf)
            flavors, more = read_flavors(nm_context.get_admin_context(),
                                         command.max_flavors)
        except Exception as exc:
            print('Cannot read the flavors from the database: %s' % exc,
                  file=sys.stderr)
            return EXIT_UNREACHABLE
        if more:
            print('Images checked against the first %d flavors only '
                  '(--max-flavors).' % command.max_flavors, file=sys.stderr)
        for index, (image, found) in enumerate(report):
            # An image Nova cannot read is refused with every flavor.
            if not any(kind == INVALID for kind, _k, _m in found):
                report[index] = (image, _ordered(found + conflicts_of(
                    image, flavors_of(flavors, image.get('owner')))))
    counted = KINDS if command.strict else ERRORS
    failing = [image for image, found in report
               if any(kind in counted for kind, _k, _m in found)]
    if command.format == 'json':
        print(json.dumps({
            'images': [{'id': image['id'], 'name': image.get('name'),
                        'status': image.get('status'),
                        'findings': [{'kind': kind, 'property': key,
                                      'message': message}
                                     for kind, key, message in found]}
                       for image, found in report if found],
            'images_checked': len(report),
            'images_failing': len(failing)}, indent=2, sort_keys=True))
    else:
        rows = [(image, finding) for image, found in report
                for finding in found]
        if rows:
            table = prettytable.PrettyTable(
                ['Image', 'Name', 'Kind', 'Property', 'Finding'])
            table.align = 'l'
            table.max_width = 60
            for image, (kind, key, message) in rows:
                table.add_row([image['id'], image.get('name') or '', kind,
                               key, message])
            print(table)
        noun = 'image' if len(report) == 1 else 'images'
        if failing:
            print('%d of %d %s have properties Nova refuses or ignores%s.' % (
                len(failing), len(report), noun,
                ', or conflict with flavors' if command.flavors else ''))
        else:
            print('%d %s checked: no property Nova refuses or ignores%s.' % (
                len(report), noun,
                ', no flavor conflict' if command.flavors else ''))
    return EXIT_FINDINGS if failing else EXIT_CLEAN


def _positive(text):
    number = int(text)
    if number < 1:
        raise ValueError(text)
    return number


def add_parser(actions):
    """The ``audit`` action of ``image-properties``."""
    parser = actions.add_parser(
        'audit', help='Check the properties of every image in Glance; exit '
                      '1 if Nova refuses or ignores any, 2 if Glance cannot '
                      'be listed')
    parser.add_argument('--format', choices=('table', 'json'),
                        default='table', help='Output format.')
    parser.add_argument('--strict', action='store_true',
                        help='Deprecated and unknown properties count as '
                             'findings too (exit status 1).')
    parser.add_argument('--page-size', type=_positive, default=DEFAULT_PAGE_SIZE,
                        help='Images asked of Glance per request.')
    parser.add_argument('--no-flavors', dest='flavors', action='store_false',
                        help='Do not check images against the flavors '
                             '(which are read from [database]).')
    parser.add_argument('--max-flavors', type=_positive,
                        default=DEFAULT_MAX_FLAVORS,
                        help='Enabled flavors read (by flavorid) to check '
                             'each image against: the public ones and the '
                             "private ones shared with the image's owner.")
