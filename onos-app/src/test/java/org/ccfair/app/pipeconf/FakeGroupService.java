/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.onosproject.core.ApplicationId;
import org.onosproject.core.GroupId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.group.DefaultGroup;
import org.onosproject.net.group.DefaultGroupDescription;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupKey;
import org.onosproject.net.group.GroupServiceAdapter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ONOS's group store in miniature (groups by device and key; a group's id is the given id).
 */
public class FakeGroupService extends GroupServiceAdapter {

    /** Groups by (device, key). */
    public final Map<List<Object>, Group> groups = new LinkedHashMap<>();
    /** Number of addGroup calls. */
    public int adds;

    @Override
    public synchronized void addGroup(GroupDescription d) {
        adds++;
        groups.put(List.of(d.deviceId(), d.appCookie()), new DefaultGroup(GroupId.valueOf(d.givenGroupId()), d));
    }

    @Override
    public synchronized Group getGroup(DeviceId deviceId, GroupKey appCookie) {
        return groups.get(List.of(deviceId, appCookie));
    }

    @Override
    public synchronized void setBucketsForGroup(DeviceId deviceId, GroupKey oldCookie, GroupBuckets buckets,
                                                GroupKey newCookie, ApplicationId appId) {
        Group g = groups.remove(List.of(deviceId, oldCookie));
        GroupDescription d = new DefaultGroupDescription(deviceId, g.type(), buckets, newCookie,
                                                         g.givenGroupId(), appId);
        groups.put(List.of(deviceId, newCookie), new DefaultGroup(g.id(), d));
    }

    @Override
    public synchronized void removeGroup(DeviceId deviceId, GroupKey appCookie, ApplicationId appId) {
        groups.remove(List.of(deviceId, appCookie));
    }

    @Override
    public synchronized void purgeGroupEntries(DeviceId deviceId) {
        groups.keySet().removeIf(k -> k.get(0).equals(deviceId));
    }

    @Override
    public synchronized Iterable<Group> getGroups(DeviceId deviceId, ApplicationId appId) {
        List<Group> out = new ArrayList<>();
        groups.values().stream().filter(g -> g.deviceId().equals(deviceId) && g.appId().equals(appId))
                .forEach(out::add);
        return out;
    }

    @Override
    public synchronized Iterable<Group> getGroups(DeviceId deviceId) {
        List<Group> out = new ArrayList<>();
        groups.values().stream().filter(g -> g.deviceId().equals(deviceId)).forEach(out::add);
        return out;
    }
}
