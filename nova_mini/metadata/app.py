"""The metadata service's WSGI application.

For now it lists the metadata versions it serves; instance lookup and
vendordata come with the vendordata work.
"""

from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id
import webob
import webob.dec

from nova_mini import conf
from nova_mini.db import api as db_api

CONF = conf.CONF

# The OpenStack metadata versions, oldest first, as Nova names them.
OPENSTACK_VERSIONS = ['2012-08-10', '2013-04-04', '2013-10-17',
                      '2015-10-15', '2016-06-30', '2016-10-06',
                      '2017-02-22', '2018-08-27', '2020-10-14']


@webob.dec.wsgify
def _metadata(req):
    path = req.path_info.rstrip('/')
    if path == '':
        return webob.Response(text='openstack', content_type='text/plain')
    if path == '/openstack':
        return webob.Response(text='\n'.join(OPENSTACK_VERSIONS + ['latest']),
                              content_type='text/plain')
    return webob.exc.HTTPNotFound()


def build_app(conf=CONF):
    db_api.configure(conf)
    app = request_id.RequestId(_metadata)
    return http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)
