"""Pages of seeds: the list with its upload form, and a seed's DNA."""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render

from accounts.permissions import role_required
from accounts.roles import Role, has_role
from sandmle_web.errors import ServiceError, form_errors_from
from sandmle_web.paging import bad_page_is_400, paginate
from tasks_app.seeds import dna_page, held_uploads, selectors, services
from tasks_app.seeds.forms import SeedUploadForm
from tasks_app.synthesis import selectors as synthesis_selectors
from tasks_app.synthesis import services as synthesis_services
from tasks_app.synthesis.forms import SynthesisRunForm


@role_required(Role.VIEWER)
@bad_page_is_400
def seed_list(request):
    form = SeedUploadForm()
    held = None
    if request.method == "POST":
        if not has_role(request.user, Role.CURATOR):
            return render(request, "403.html", {"reason": "Uploading seeds needs the curator role."}, status=403)
        form = SeedUploadForm(request.POST, request.FILES)
        held_token = request.POST.get("held_file", "")
        kept = held_uploads.take(user=request.user, token=held_token) if held_token else None
        valid = form.is_valid()
        upload = form.cleaned_data.get("file")  # present when the file itself passed its checks
        if upload is not None:
            kept = (upload.name, upload.read())  # a newly chosen file replaces the held one
        elif kept is None and valid:
            form.add_error("file", "the file kept from your last send has expired: choose it again")
        if form.is_valid() and kept is not None:
            try:
                seed = services.seed_create_from_upload(
                    name=form.cleaned_data["name"], content=kept[1], target=form.cleaned_data["target"],
                    task_type=form.cleaned_data["task_type"], metric=form.cleaned_data["metric"], user=request.user,
                )
                held_uploads.release(user=request.user, token=held_token)
                messages.success(request, f"Seed {seed.name} added.")
                return redirect("seed-detail", name=seed.name)
            except ServiceError as error:
                form_errors_from(form, error)
        if upload is not None:  # a newly chosen file replaces the held one, whatever becomes of it
            held_uploads.release(user=request.user, token=held_token)
        if kept is not None and "file" not in form.errors:  # a refused file itself is never held
            if upload is not None:
                held_token = held_uploads.hold(user=request.user, name=kept[0], content=kept[1])
            held = {"token": held_token, "name": kept[0]}
        status = 400
    else:
        status = 200
    page = paginate(request, selectors.seed_list_rows())
    return render(request, "tasks/seeds/seed_list.html", {"seeds": page, "page": page, "form": form, "held": held},
                  status=status)


@role_required(Role.VIEWER)
def seed_detail(request, name):
    try:
        seed = selectors.seed_get(name=name)
    except Exception:
        raise Http404(f"no seed named {name}")
    reviewer = has_role(request.user, Role.REVIEWER)
    form = SynthesisRunForm(seed=seed, may_choose_rule_family=reviewer)
    status = 200
    if request.method == "POST":
        if not has_role(request.user, Role.CURATOR):
            return render(request, "403.html", {"reason": "Synthesis needs the curator role."}, status=403)
        form = SynthesisRunForm(request.POST, seed=seed, may_choose_rule_family=reviewer)
        if form.is_valid():
            try:
                run = synthesis_services.synthesis_run_create(seed=seed, user=request.user, **form.cleaned_data)
                return redirect("synthesis-run-detail", run_id=run.id)
            except ServiceError as error:
                form_errors_from(form, error)
        status = 400
    dna = seed.dna.data if hasattr(seed, "dna") else {}
    features = dna_page.feature_rows(dna=dna, names=dna_page.seed_feature_names(seed=seed)) if dna else []
    context = {"seed": seed, "dna": dna, "feature_rows": features,
               "dna_json": json.dumps(dna_page.rounded(dna), indent=2, ensure_ascii=False), "form": form,
               "runs": synthesis_selectors.synthesis_run_list_rows(seed=seed)[:20]}
    return render(request, "tasks/seeds/seed_detail.html", context, status=status)
