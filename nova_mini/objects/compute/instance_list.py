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

"""InstanceList: the servers of one request, of a page, of a project.

Instances of one request are created together with the RequestSpec each
keeps (``InstanceList.create_all``, one transaction).

Lists are pages the database filters, sorts and places after a marker
(``InstanceList.get_by_filters``, with the SQL of
nova_mini.objects.compute.instance_filters).
"""

from nova_mini.db import api as db_api
from nova_mini.objects import base
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import instance_action
from nova_mini.objects.compute import instance_build
from nova_mini.objects.compute import instance_filters
from nova_mini.objects.compute import quota
from nova_mini.objects import fields

# The order of lists that ask none (created_at alone may tie).
NEWEST_FIRST = (('created_at', 'desc'), ('id', 'desc'))


@db_api.context_manager.writer
def _create_all(context, instances, spec):
    # First: the project's boots take turns from here to the commit, and
    # this one is refused, with nothing written, past the quota.
    quota.recheck_instances(context, instances)
    for instance in instances:
        instance._context = context      # one transaction for all
        instance.create()
        # Before the build is sent: the scheduler adds its events to it.
        instance_action.record(context, instance.uuid,
                               instance_action.CREATE)
    spec.store(context, [instance.uuid for instance in instances])


@base.NovaMiniObjectRegistry.register
class InstanceList(base.ObjectListBase, base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Instance'),
    }

    @classmethod
    def create_all(cls, context, instances, spec):
        """Create instances, record the create action of each and store
        their RequestSpec, in one transaction: all of them or, on any
        error, none.

        :param context: the request context.
        :param instances: Instance objects not yet created.
        :param spec: the RequestSpec they were booted with.
        :returns: an InstanceList of them.
        :raises nova_mini.exception.TooManyInstances: they would take
            their project past its instances, cores or ram quota.
        """
        _create_all(context, instances, spec)
        result = cls(context, objects=list(instances))
        result.obj_reset_changes()
        return result

    @classmethod
    def get_all(cls, context, project_id=None, limit=None):
        """Load instances newest first.

        Their metadata and tags are read with one query per table for the
        whole list.

        :param context: the request context.
        :param project_id: only those of this project (None: every one).
        :param limit: the most instances returned (None: all).
        :returns: an InstanceList.
        """
        return cls.get_by_filters(context, {'project_id': project_id},
                                  NEWEST_FIRST, limit)

    @classmethod
    def _from_rows(cls, context, loaded):
        result = cls(context)
        result.objects = [
            instance_obj.Instance._from_db_object(
                context, instance_obj.Instance(), row)
            for row in loaded]
        result.obj_reset_changes()
        return result

    @classmethod
    def get_by_filters(cls, context, filters, sort, limit=None, marker=None):
        """Load a page of the instances matching ``filters``, in the order
        of ``sort``, after the instance ``marker`` (which need not match
        the filters), at most ``limit``; the database does all of it, with
        one query for the page and one each for its metadata and tags
        (one more for the marker's place).

        :param context: the request context.
        :param filters: see nova_mini.objects.compute.instance_filters.
        :param sort: ``[(key, 'asc' or 'desc')]`` ending with a unique
            key (``id``); keys as instance_filters reads them.
        :param limit: the most instances returned (None: all).
        :param marker: the uuid of the instance the page follows.
        :returns: an InstanceList.
        :raises nova_mini.exception.MarkerNotFound: no instance of ``filters['project_id']``
            (any project if not given) has the uuid ``marker``.
        """
        return cls._from_rows(context, instance_filters.get_page(
            context, filters, sort, limit, marker))

    @staticmethod
    def expire_overdue_builds(context, project_id, timeout):
        """Fail the builds not finished ``timeout`` seconds after they began,
        as Instance.expire_build does. A cheap indexed read when there are
        none.

        :param context: the request context.
        :param project_id: whose builds (None: every project's).
        :param timeout: the seconds a build may last.
        :returns: how many builds were failed.
        """
        return instance_build.expire_overdue(context, project_id, timeout)
