import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/lib/api-client';
import type { InvitationAcceptRequest, Me, SignupRequest } from '@/lib/api-types';
import { meQueryKey } from './get-me';

/** Sign up, accept an invitation or switch organization: each answers with the new session. */
function useSessionMutation<T>(mutationFn: (variables: T) => Promise<Me>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: (me) => {
      // Everything cached belonged to the previous organization (or to no one).
      queryClient.clear();
      queryClient.setQueryData(meQueryKey, me);
    },
  });
}

export const getSignupAvailability = () => unwrap(api.GET('/api/v1/auth/signup'));
/** Whether this server lets people create an organization (else: by invitation only). */
export const useSignupOpen = () =>
  useQuery({ queryKey: ['signup-availability'], queryFn: getSignupAvailability, staleTime: Infinity });

export const signup = (body: SignupRequest) => unwrap(api.POST('/api/v1/auth/signup', { body }));
export const useSignup = () => useSessionMutation(signup);

export const selectOrganization = (slug: string) =>
  unwrap(api.POST('/api/v1/auth/organization', { body: { slug } }));
export const useSelectOrganization = () => useSessionMutation(selectOrganization);

export const getInvitation = (token: string) =>
  unwrap(api.GET('/api/v1/auth/invitations/{token}', { params: { path: { token } } }));
export const useInvitation = (token: string) =>
  useQuery({ queryKey: ['invitation', token], queryFn: () => getInvitation(token), retry: false });

export const acceptInvitation = ({ token, body }: { token: string; body: InvitationAcceptRequest }) =>
  unwrap(api.POST('/api/v1/auth/invitations/{token}/accept', { params: { path: { token } }, body }));
export const useAcceptInvitation = () => useSessionMutation(acceptInvitation);

export const requestPasswordReset = (email: string) =>
  unwrap(api.POST('/api/v1/auth/password-reset', { body: { email } }));
export const useRequestPasswordReset = () => useMutation({ mutationFn: requestPasswordReset });

export const confirmPasswordReset = (body: { uid: string; token: string; new_password: string }) =>
  unwrap(api.POST('/api/v1/auth/password-reset/confirm', { body }));
export const useConfirmPasswordReset = () => useMutation({ mutationFn: confirmPasswordReset });
