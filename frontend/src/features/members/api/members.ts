import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { InvitationRequest, Role } from '@/lib/api-types';

const membersKey = ['members'] as const;
const invitationsKey = ['invitations'] as const;

export const getMembers = () => unwrap(api.GET('/api/v1/members'));
export const useMembers = () => useQuery({ queryKey: membersKey, queryFn: getMembers });

/** Pending invitations: owners and admins only (`enabled` false for anyone else). */
export const getInvitations = () => unwrap(api.GET('/api/v1/invitations'));
export const useInvitations = (enabled: boolean) =>
  useQuery({ queryKey: invitationsKey, queryFn: getInvitations, enabled });

export const changeRole = ({ id, role }: { id: string; role: Role }) =>
  unwrap(api.PATCH('/api/v1/members/{membership_id}', { params: { path: { membership_id: id } }, body: { role } }));
export const removeMember = (id: string) =>
  unwrap(api.DELETE('/api/v1/members/{membership_id}', { params: { path: { membership_id: id } } }));
export const invite = (body: InvitationRequest) => unwrap(api.POST('/api/v1/invitations', { body }));
export const resendInvitation = (id: string) =>
  unwrap(api.POST('/api/v1/invitations/{invitation_id}/resend', { params: { path: { invitation_id: id } } }));
export const revokeInvitation = (id: string) =>
  unwrap(api.POST('/api/v1/invitations/{invitation_id}/revoke', { params: { path: { invitation_id: id } } }));

function useMembersMutation<T, R>(mutationFn: (variables: T) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: membersKey });
      void queryClient.invalidateQueries({ queryKey: invitationsKey });
    },
  });
}

export const useChangeRole = () => useMembersMutation(changeRole);
export const useRemoveMember = () => useMembersMutation(removeMember);
export const useInvite = () => useMembersMutation(invite);
export const useResendInvitation = () => useMembersMutation(resendInvitation);
export const useRevokeInvitation = () => useMembersMutation(revokeInvitation);

export const leaveOrganization = () => unwrap(api.POST('/api/v1/members/leave'));

/** Leaving ends this session's view of the organization: nothing cached of it stays. */
export function useLeave() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: leaveOrganization, onSuccess: () => queryClient.clear() });
}
