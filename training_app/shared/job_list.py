"""What the job list pages (rollout batches, campaigns, audits, latency studies, training runs) share: the paged list
with its launch form, and on a curator's POST the launch, a service's refusal shown on the form (400) or the new job."""

from __future__ import annotations

from django.shortcuts import redirect, render

from accounts.permissions import role_required
from accounts.roles import Role, has_role
from sandmle_web.errors import ServiceError, form_errors_from
from sandmle_web.paging import bad_page_is_400, paginate
from tasks_app.task_sets import selectors as task_set_selectors


class JobListPage:
    """One list page with a launch form. A feature names its form, template, jobs and create call; one instance serves
    one request, so the hooks may keep what they looked up (the offered choices) on `self`."""

    form_class = None
    template = ""
    jobs_name = ""  # the template's name for the page of jobs, beside `page`
    launching = ""  # "Launching <this> needs the curator role."
    detail_url = ""  # the URL name of a job's page and its one id argument
    detail_id = ""

    def __init__(self, request):
        self.request = request

    @classmethod
    def as_view(cls):
        @role_required(Role.VIEWER)
        @bad_page_is_400
        def view(request, *args, **kwargs):
            return cls(request, *args, **kwargs).respond()

        view.__module__, view.__name__, view.__qualname__ = cls.__module__, cls.__name__, cls.__qualname__
        return view

    # What a feature declares.
    def form_kwargs(self) -> dict:
        """The choices the form offers, both unbound and bound: by default the live task sets."""
        self.task_set_names = task_set_selectors.task_set_launch_names()
        return {"task_set_names": self.task_set_names}

    def initial(self) -> dict:
        # The set page's launch links name their set (?task_set=); the form starts from it.
        return task_set_selectors.task_set_launch_initial(query=self.request.GET, names=self.task_set_names)

    def unbound_kwargs(self) -> dict:
        """What only the unbound form takes besides its initial values."""
        return {}

    def refusal(self) -> tuple[str, str] | None:
        """The field and the reason when the POST is refused before its form is used (an upload over its limit)."""
        return None

    def create(self, form):
        """Launch from the valid form and return the job; a ServiceError becomes the form's error."""
        raise NotImplementedError

    def jobs(self):
        raise NotImplementedError

    def extra_context(self) -> dict:
        return {}

    # The page.
    def respond(self):
        request = self.request
        choices = self.form_kwargs()
        form = self.form_class(initial=self.initial(), **choices, **self.unbound_kwargs())
        status = 200
        if request.method == "POST":
            if not has_role(request.user, Role.CURATOR):
                return render(request, "403.html", {"reason": f"Launching {self.launching} needs the curator role."},
                              status=403)
            # A form without file fields ignores FILES (only the latency form takes an upload).
            form = self.form_class(request.POST, request.FILES, **choices)
            refused = self.refusal()
            if refused:
                form.is_valid()
                form.add_error(*refused)
            elif form.is_valid():
                try:
                    job = self.create(form)
                    return redirect(self.detail_url, **{self.detail_id: job.id})
                except ServiceError as error:
                    form_errors_from(form, error)
            status = 400
        page = paginate(request, self.jobs())
        return render(request, self.template, {self.jobs_name: page, "page": page, "form": form} | self.extra_context(),
                      status=status)


def task_set_of(fields: dict):
    """Pops the form's task set name from `fields` and returns the set it names."""
    return task_set_selectors.task_set_get(name=fields.pop("task_set"))
