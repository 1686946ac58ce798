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

"""nova-mini-manage image-properties audit (its ``main`` in process; the
console script itself in test_audit_without_glance_exits_2) against a
real Glance (its pipeline without authentication, reached at ``[glance]
endpoint_override``) holding images of each visibility, and the flavors
of a database made by ``db sync``.
"""

import json

from keystoneauth1 import session as ks_session
import pytest

from nova_mini.cmd import manage
from nova_mini.cmd import manage_image_audit
from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import console_scripts
from nova_mini_deploy import glance as glance_harness
from nova_mini_deploy import util

CLEAN = 'b2b2b2b2-0000-4000-8000-000000000001'
MISSPELLED = 'b2b2b2b2-0000-4000-8000-000000000002'
INVALID = 'b2b2b2b2-0000-4000-8000-000000000003'
NOTES = 'b2b2b2b2-0000-4000-8000-000000000004'
COMMUNITY = 'b2b2b2b2-0000-4000-8000-000000000005'
PINNED = 'b2b2b2b2-0000-4000-8000-000000000006'
# name -> (visibility, properties)
IMAGES = {
    'clean': ('shared', {'id': CLEAN, 'hw_cpu_policy': 'shared',
                         'os_distro': 'cirros'}),
    'misspelled': ('private', {'id': MISSPELLED,
                               'hw_cpu_polcy': 'dedicated'}),
    'invalid': ('shared', {'id': INVALID, 'hw_cpu_policy': 'pinned',
                           'hw_architecture': 'x86_64'}),
    'notes': ('private', {'id': NOTES, 'xenapi_use_agent': 'true',
                          'site_owner': 'team-a'}),
    'community': ('community', {'id': COMMUNITY, 'hw_numa_cpus.1': '0-3'}),
    # Refused with a flavor of shared CPUs.
    'pinned': ('shared', {'id': PINNED, 'hw_cpu_policy': 'dedicated'}),
}
SHARED_CPUS = {'hw:cpu_policy': 'shared'}
PINNING_MESSAGE = ("Image property 'hw_cpu_policy' is not permitted to "
                   "override CPU pinning policy set against the flavor")
MISSPELLED_MESSAGE = ("Image property 'hw_cpu_polcy' is not a known image "
                      "property; did you mean 'hw_cpu_policy'? Nova ignores "
                      "it.")
INVALID_MESSAGE = ("Invalid image metadata. Error: Image property "
                   "'hw_cpu_policy': 'pinned' is not one of: dedicated, "
                   "shared, mixed.")


@pytest.fixture(scope='module')
def glance(tmp_path_factory):
    # One worker: the audit's requests come one at a time.
    service = glance_harness.Glance(
        str(tmp_path_factory.mktemp('glance')), util.free_port(),
        workers=1).setup()
    service.start()
    try:
        session = ks_session.Session(timeout=60)
        for name, (visibility, properties) in IMAGES.items():
            service.ensure_image(session, name, properties,
                                 visibility=visibility)
        yield service
    finally:
        service.stop()


def _glance_sections(endpoint):
    return ('[api]\nauth_strategy = noauth2\n'
            '[glance]\nendpoint_override = %s\n' % endpoint)


def _config(tmp_path, endpoint):
    config_file = tmp_path / 'nova-mini.conf'
    config_file.write_text(_glance_sections(endpoint))
    return config_file


@pytest.fixture
def flavors_and_glance(tmp_path, glance):
    """A config file with the flavors' database and the Glance: a
    public flavor of shared CPUs (refuses PINNED), one without a CPU
    policy, and flavors of shared CPUs the audit does not read for these
    images: a disabled one, a private one of another project (Glance's
    unauthenticated images have no owner).
    """
    with console_scripts.synced_database(
            tmp_path, _glance_sections(glance.url)) as config_file:
        context = nm_context.get_admin_context()
        builders.create_flavor(context, 'shared-cpus',
                               extra_specs=dict(SHARED_CPUS))
        builders.create_flavor(context, 'any-cpus')
        builders.create_flavor(context, 'old-shared', disabled=True,
                               extra_specs=dict(SHARED_CPUS))
        builders.create_flavor(context, 'private-shared', is_public=False,
                               extra_specs=dict(SHARED_CPUS)).add_access(
                                   'other')
        yield config_file


def audit(config_file, *args, script=False):
    """The audit's result; by the console script itself with ``script``,
    else its ``main`` in process.
    """
    if script:
        return console_scripts.run('nova-mini-manage', config_file,
                                   'image-properties', 'audit', *args)
    return console_scripts.call(manage.main, config_file,
                                'image-properties', 'audit', *args)


def _by_image(report):
    return {image['id']: [(f['kind'], f['property'], f['message'])
                          for f in image['findings']]
            for image in report['images']}


def test_audit_finds_misspelled_and_invalid_properties(flavors_and_glance):
    # Two images a page: Glance's next links are followed to the end.
    result = audit(flavors_and_glance, '--format', 'json', '--page-size',
                   '2')
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report['images_checked'] == 6
    assert report['images_failing'] == 4
    found = _by_image(report)
    assert CLEAN not in found
    assert found[MISSPELLED] == [('misspelled', 'hw_cpu_polcy',
                                  MISSPELLED_MESSAGE)]
    # Not checked against flavors: Nova refuses it with any.
    assert found[INVALID] == [('invalid', 'hw_cpu_policy', INVALID_MESSAGE)]
    # The enabled flavors it can boot with: only the public one of shared
    # CPUs refuses it.
    assert found[PINNED] == [('conflict', 'flavor shared-cpus',
                              PINNING_MESSAGE)]
    [(kind, key, message)] = found[COMMUNITY]
    assert (kind, key) == ('ignored', 'hw_numa_cpus.1')
    assert 'stops at the first missing number' in message
    # Notes: the exit status is 1 for them only with --strict.
    [deprecated, unknown] = found[NOTES]
    assert deprecated[:2] == ('deprecated', 'xenapi_use_agent')
    assert deprecated[2].startswith("Image property 'xenapi_use_agent' is "
                                    "deprecated. Only the XenAPI driver")
    # Not a near miss of img_owner_id: unknown, not misspelled.
    assert unknown == ('unknown', 'site_owner', "Image property 'site_owner' "
                       "is not a known image property; Nova keeps it as a "
                       "raw property.")


def test_audit_table_and_strict(flavors_and_glance):
    config_file = flavors_and_glance
    result = audit(config_file)
    assert result.returncode == 1, result.stderr
    rows = [[c.strip() for c in line.split('|')[1:-1]]
            for line in result.stdout.splitlines() if line.startswith('|')]
    assert rows[0] == ['Image', 'Name', 'Kind', 'Property', 'Finding']
    assert [MISSPELLED, 'misspelled', 'misspelled', 'hw_cpu_polcy'] == \
        rows[[r[0] for r in rows].index(MISSPELLED)][:4]
    assert result.stdout.splitlines()[-1] == (
        '4 of 6 images have properties Nova refuses or ignores, or '
        'conflict with flavors.')
    strict = audit(config_file, '--strict', '--format', 'json')
    assert json.loads(strict.stdout)['images_failing'] == 5
    # Without the flavors, PINNED is clean.
    without = audit(config_file, '--no-flavors', '--format', 'json')
    assert PINNED not in _by_image(json.loads(without.stdout))


def test_audit_of_clean_images_exits_0(tmp_path):
    # A Glance of its own, with only the clean image.
    clean = glance_harness.Glance(str(tmp_path / 'clean'),
                                  util.free_port(), workers=1).setup()
    clean.start()
    try:
        clean.ensure_image(ks_session.Session(timeout=60), 'clean',
                           dict(IMAGES['clean'][1]), visibility='shared')
        with console_scripts.synced_database(
                tmp_path, _glance_sections(clean.url)) as config_file:
            builders.create_flavor(nm_context.get_admin_context(),
                                   'shared-cpus',
                                   extra_specs=dict(SHARED_CPUS))
            result = audit(config_file)
    finally:
        clean.stop()
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ('1 image checked: no property Nova refuses or '
                             'ignores, no flavor conflict.\n')


def test_audit_without_glance_exits_2(tmp_path):
    result = audit(_config(tmp_path, 'http://127.0.0.1:%d' %
                           util.free_port()), script=True)
    assert result.returncode == 2
    assert result.stderr.startswith('Cannot list the images in Glance: '
                                    'ConnectFailure'), result.stderr
    assert result.stdout == ''
    config_file = tmp_path / 'noauth.conf'
    config_file.write_text('[api]\nauth_strategy = noauth2\n')
    result = audit(config_file)
    assert result.returncode == 2
    assert 'endpoint_override is not set' in result.stderr


def test_audit_without_service_credentials_exits_2(tmp_path):
    config_file = tmp_path / 'keystone.conf'
    config_file.write_text('[api]\nauth_strategy = keystone\n')
    result = audit(config_file)
    assert result.returncode == 2
    assert result.stderr == (
        'Cannot list the images in Glance: [keystone_authtoken] has no '
        "auth_type: the audit reads Glance with the service's "
        'credentials\n')


def test_private_flavors_of_the_owner(tmp_path):
    """An owned image is checked against the private flavors shared with
    its owner, not those of other projects.
    """
    with console_scripts.synced_database(tmp_path):
        context = nm_context.get_admin_context()
        builders.create_flavor(context, 'public-any')
        for name, project in (('mine', 'demo'), ('theirs', 'other')):
            builders.create_flavor(context, name, is_public=False,
                                   extra_specs=dict(SHARED_CPUS)).add_access(
                                       project)
        flavors, more = manage_image_audit.read_flavors(context)
        assert not more
        limited, more = manage_image_audit.read_flavors(context, limit=2)
        assert (len(limited), more) == (2, True)
    image = {'id': PINNED, 'name': 'pinned', 'owner': 'demo',
             'status': 'active', 'hw_cpu_policy': 'dedicated'}
    candidates = manage_image_audit.flavors_of(flavors, 'demo')
    assert sorted(f.flavorid for f in candidates) == ['mine', 'public-any']
    assert manage_image_audit.conflicts_of(image, candidates) == [
        ('conflict', 'flavor mine', PINNING_MESSAGE)]
    assert [f.flavorid for f in manage_image_audit.flavors_of(
        flavors, None)] == ['public-any']


def test_an_image_a_boot_refuses_for_its_cpu_arch_conflicts():
    """Typed as a boot types it (image_flavor_rules.check): a cpu_arch
    that is no architecture is what a boot answers with each flavor, not
    the audit's failure.
    """
    objects.register_all()
    flavors = [objects.Flavor(flavorid=name, name=name, vcpus=1,
                              memory_mb=1024, extra_specs={})
               for name in ('a', 'b')]
    image = {'id': PINNED, 'name': 'odd', 'status': 'active',
             'cpu_arch': 'pdp11'}
    found = manage_image_audit.conflicts_of(image, flavors)
    assert [(kind, where) for kind, where, _message in found] == [
        ('conflict', 'flavor a'), ('conflict', 'flavor b')]
    assert all("cpu_arch='pdp11'" in message for _k, _w, message in found)
